// What the service layer needs from the vision worker (so services can be tested with it directly).
import type { Result } from '../errors.ts';
import type { ImageAnalysis, ImageAnalysisOptions } from '../worker/image-analysis.ts';

export interface VisionPort {
  analyze(input: Blob | string | Uint8Array, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>>;
}
