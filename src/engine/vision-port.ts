// The services' vision port over the vision worker. Encoded photos (Blob, base64, URL) go as they
// are and are decoded in the worker; a decoded one (ImageBitmap, <img>, <canvas>, <video>,
// VideoFrame, ImageData) is turned here, on the page, into a transferable bitmap/frame or an
// ImageData (src/intake/decoded-input.ts) — no encode — and that time is counted in the
// analysis's decode timing.
import * as Comlink from 'comlink';
import { toResult, type Result } from '../errors.ts';
import { isDecodedImageInput, transferableImage } from '../intake/decoded-input.ts';
import type { VisionPort } from '../service/vision-port.ts';
import type { ImageAnalysis } from '../worker/image-analysis.ts';
import type { VisionWorkerApi } from '../worker/vision.worker.ts';

type AnalyzeApi = Pick<Comlink.Remote<VisionWorkerApi>, 'analyze'>;

export function workerVisionPort(api: AnalyzeApi): VisionPort {
  return {
    async analyze(input, options) {
      if (!isDecodedImageInput(input)) return api.analyze(input, options) as Promise<Result<ImageAnalysis>>;
      const started = performance.now();
      const prepared = await toResult(() => transferableImage(input));
      if (!prepared.ok) return prepared;
      const { image, transfer } = prepared.value;
      const pageMs = performance.now() - started;
      let result: Result<ImageAnalysis>;
      try {
        result = (await api.analyze(Comlink.transfer(image, transfer), options)) as Result<ImageAnalysis>;
      } finally {
        // a call that failed before posting (the engine closed) still holds the copy; once posted it is already empty
        if ('close' in image) image.close();
      }
      if (result.ok) {
        result.value.timings.decode += pageMs;
        result.value.timings.total += pageMs;
      }
      return result;
    },
  };
}
