// Everything intake can say about encoded bytes without decoding them: format (by content),
// policy, stored size, completeness, limits and EXIF orientation. Pure; the browser decode
// (decode.ts) runs only on bytes that pass this.
import { EngineError } from '../errors.ts';
import { readJpegOrientation, type Orientation } from './exif.ts';
import { readImageHeader } from './header.ts';
import { checkDimensions, checkEncodedSize } from './limits.ts';
import { ACCEPTED_FORMATS, FORMAT_NAMES, sniffImageType, sniffOtherFormat, type ImageFormat } from './sniff.ts';

export interface ImageInfo {
  format: ImageFormat;
  /** dimensions as stored in the file, before EXIF rotation */
  storedWidth: number;
  storedHeight: number;
  /** EXIF orientation (JPEG only); 1 when absent */
  orientation: Orientation;
  byteLength: number;
}

const list = (formats: readonly ImageFormat[]) => formats.map((f) => FORMAT_NAMES[f]).join(', ');

export function inspectImage(bytes: Uint8Array, formats: readonly ImageFormat[] = ACCEPTED_FORMATS): ImageInfo {
  checkEncodedSize(bytes.length);
  const format = sniffImageType(bytes);
  if (!format) {
    const other = sniffOtherFormat(bytes);
    throw new EngineError(
      'IMAGE_DECODE',
      other
        ? `bad image format: this is ${other}; accepted formats are ${list(formats)}`
        : `bad image format: the data is not a recognised image; accepted formats are ${list(formats)}`,
    );
  }
  const name = FORMAT_NAMES[format];
  if (!formats.includes(format)) {
    throw new EngineError('IMAGE_DECODE', `bad image format: ${name} images are not accepted; send ${list(formats)}`);
  }
  const header = readImageHeader(bytes, format);
  if (!header) throw new EngineError('IMAGE_DECODE', `the image could not be decoded: its ${name} header is missing or corrupt`);
  if (!header.complete) throw new EngineError('IMAGE_DECODE', `the image could not be decoded: the ${name} data is truncated`);
  checkDimensions(header.width, header.height);
  return {
    format,
    storedWidth: header.width,
    storedHeight: header.height,
    orientation: (format === 'jpeg' ? readJpegOrientation(bytes) : undefined) ?? 1,
    byteLength: bytes.length,
  };
}
