// /detect: every face with its features and attributes.
import { DetectRequestSchema, type DetectResponse } from '../api/detect-schema.ts';
import { parseRequest } from '../api/validate.ts';
import { EngineError } from '../errors.ts';
import { parseSelector } from '../vision/selector.ts';
import type { VisionPort } from './vision-port.ts';
import { imageFileName } from './file-name.ts';
import { headScaleOptions } from './head-scale.ts';
import { kairosDetectFace } from './face-json.ts';

export async function detect(vision: VisionPort, body: unknown): Promise<DetectResponse> {
  const request = parseRequest(DetectRequestSchema, body);
  const selector = parseSelector(request.selector);
  const result = await vision.analyze(request.image, {
    ...headScaleOptions(request.minHeadScale),
    selector,
    demographics: true,
    emotion: false,
    keepMesh: false,
  });
  if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
  const analysis = result.value;
  if (analysis.faces.length === 0) throw new EngineError('NO_FACES');
  return {
    images: [
      {
        status: 'Complete',
        width: analysis.width,
        height: analysis.height,
        file: imageFileName(request.image),
        faces: analysis.faces.map((f, i) => kairosDetectFace(f, i + 1, analysis.width, analysis.height)),
      },
    ],
  };
}
