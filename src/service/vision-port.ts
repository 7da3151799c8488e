// What the service layer needs from the vision worker (so services can be tested with it directly).
import type { Result } from '../errors.ts';
import type { ImageSource } from '../intake/image-input.ts';
import type { ImageAnalysis, ImageAnalysisOptions } from '../worker/image-analysis.ts';

export interface VisionPort {
  /** a decoded input (ImageBitmap, <img>, …) is the port's to send without an encode (src/engine/vision-port.ts) */
  analyze(input: ImageSource | Uint8Array, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>>;
}
