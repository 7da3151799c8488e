// Analysis results → the Kairos face JSON fields (pure). The one place that decides
// rounding, the race mapping and the left/right convention of the response.
import type { Attributes, DetectFace } from '../api/detect-schema.ts';
import { UNKNOWN } from '../api/field-audit.ts';
import type { FaceAnalysis } from '../worker/face-analyzer.ts';
import { clipBox } from '../vision/geometry.ts';

/** Inner-lip gap above this fraction of mouth width counts as "Apart". */
export const LIPS_APART_RATIO = 0.08;

const round = Math.round;
const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * GEAR has five classes [white, black, asian, indian, other] and no hispanic class:
 * asian = asian + indian (South Asian counted as Asian), white/black/other as is, and hispanic
 * is not measured: UNKNOWN.number (-1), never a made-up 0 (docs/api.md, "No made-up values").
 */
export function kairosAttributes(face: FaceAnalysis): Attributes {
  const d = face.demographics;
  // every caller asks the worker for demographics; without them there is nothing honest to send
  if (!d) throw new Error('kairosAttributes: the face was analysed without demographics');
  const male = d.male;
  const attributes: Attributes = {
    age: round(d.age),
    gender: { type: male > 0.5 ? 'M' : 'F', maleConfidence: round3(male), femaleConfidence: round3(1 - male) },
    asian: round3(d.race.asian + d.race.indian),
    black: round3(d.race.black),
    hispanic: UNKNOWN.number,
    white: round3(d.race.white),
    other: round3(d.race.other),
    lips: face.geometry.mouthOpen > LIPS_APART_RATIO ? 'Apart' : 'Together',
  };
  if (face.liveness !== undefined) attributes.liveness = round3(face.liveness);
  return attributes;
}

/** The face box clipped to the image (a face cut by the edge keeps its visible part). */
export function clippedBox(face: FaceAnalysis, width: number, height: number) {
  const c = clipBox(face.box, width, height);
  const [x0, y0] = [round(c.x), round(c.y)];
  return { topLeftX: x0, topLeftY: y0, width: round(c.x + c.width) - x0, height: round(c.y + c.height) - y0 };
}

export function kairosDetectFace(face: FaceAnalysis, faceId: number, imageWidth: number, imageHeight: number): DetectFace {
  const g = face.geometry;
  return {
    ...clippedBox(face, imageWidth, imageHeight),
    chinTipX: round(g.chin.x),
    chinTipY: round(g.chin.y),
    rightEyeCenterX: round(g.rightEye.x),
    rightEyeCenterY: round(g.rightEye.y),
    leftEyeCenterX: round(g.leftEye.x),
    leftEyeCenterY: round(g.leftEye.y),
    eyeDistance: round(g.eyeDistance),
    yaw: round(g.yaw),
    pitch: round(g.pitch),
    roll: round(g.roll),
    confidence: round3(face.detection.score),
    quality: round3(face.quality),
    face_id: faceId,
    attributes: kairosAttributes(face),
  };
}
