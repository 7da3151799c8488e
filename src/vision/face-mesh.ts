// Named points and measurements derived from MediaPipe's 468-point face mesh (pure).
//
// Left/right convention: "left" is the SUBJECT's own left (on the image's right for a face
// looking at the camera), matching /detect's leftEyeCenter. Mesh indices follow MediaPipe's
// canonical face model, where e.g. 263 is the outer corner of the subject's left eye.
import { distance, midpoint, type Point } from './geometry.ts';

export interface MeshPoint extends Point {
  /** relative depth in the same units as x and y; smaller = closer to the camera */
  z: number;
}

export const MESH = {
  leftEye: [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466],
  rightEye: [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246],
  /** eye-aspect points: corners, two upper and two lower lid points */
  leftEyeAspect: { corners: [362, 263], upper: [385, 387], lower: [380, 373] },
  rightEyeAspect: { corners: [33, 133], upper: [160, 158], lower: [144, 153] },
  chin: 152,
  noseTip: 1,
  forehead: 10,
  leftCheek: 454,
  rightCheek: 234,
  mouthLeft: 291,
  mouthRight: 61,
  upperLipInner: 13,
  lowerLipInner: 14,
  /** corners and upper/lower lip centres, averaged into the mouth centre */
  mouth: [61, 291, 0, 17, 13, 14],
} as const;

/**
 * The 49 named landmarks of the emotion API, in the contract's order (spelling and casing
 * exactly as clients expect). Feature names use the subject's left/right; within a feature,
 * the Left/Right suffix follows the same convention. See docs/detection.md for the table.
 */
export const NAMED_LANDMARKS: readonly (readonly [string, number])[] = [
  ['leftEyeBrowOuterLeft', 300],
  ['leftEyeBrowInnerLeft', 334],
  ['leftEyeBrowInnerRight', 296],
  ['leftEyeBrowOuterRight', 336],
  ['rightEyeBrowOuterleft', 107],
  ['rightEyeBrowInnerLeft', 66],
  ['rightEyeBrowInnerRight', 105],
  ['rightEyeBrowOuterRight', 70],
  ['noseBetweenEyes', 168],
  ['noseBridge', 6],
  ['noseBody', 195],
  ['noseTipTop', 4],
  ['leftNostrilOuterLeft', 294],
  ['leftNostrilInnerRight', 327],
  ['noseTipBottom', 2],
  ['rightNostrilInnerLeft', 98],
  ['rightNostrilOuterRight', 64],
  ['leftEyeCornerLeft', 263],
  ['leftEyeTopInnerLeft', 387],
  ['leftEyeTopInnerRight', 385],
  ['LeftEyeCornerRight', 362],
  ['LeftEyeBottomInnerRight', 380],
  ['LeftEyeBottomInnerLeft', 373],
  ['rightEyeCornerLeft', 133],
  ['rightEyeTopInnerLeft', 158],
  ['rightEyeTopInnerRight', 160],
  ['rightEyeCornerRight', 33],
  ['rightEyeBottomInnerRight', 144],
  ['rightEyeBottomInnerLeft', 153],
  ['upperLipTopCornerLeft', 291],
  ['upperLipTopOuterLeft', 409],
  ['upperLipTopInnerLeft', 269],
  ['upperLipTopCenter', 0],
  ['upperLipTopInnerRight', 39],
  ['upperLipTopOuterRight', 185],
  ['upperLipTopCornerRight', 61],
  ['lowerLipBottomCornerRight', 146],
  ['lowerLipBottomInnerRight', 181],
  ['lowerLipBottomCenter', 17],
  ['lowerLipBottomInnerLeft', 405],
  ['lowerLipBottomCornerLeft', 375],
  ['upperLipBottomOuterLeft', 415],
  ['upperLipBottomInnerLeft', 311],
  ['upperLipBottomCenter', 13],
  ['upperLipBottomInnerRight', 81],
  ['upperLipBottomOuterRight', 191],
  ['lowerLipTopInnerRight', 178],
  ['lowerLipTopCenter', 14],
  ['lowerLipTopInnerLeft', 402],
];

function mean(mesh: readonly MeshPoint[], indices: readonly number[]): Point {
  let x = 0;
  let y = 0;
  for (const i of indices) {
    x += mesh[i]!.x;
    y += mesh[i]!.y;
  }
  return { x: x / indices.length, y: y / indices.length };
}

export interface FaceGeometry {
  leftEye: Point;
  rightEye: Point;
  chin: Point;
  noseTip: Point;
  mouthLeft: Point;
  mouthRight: Point;
  mouthCenter: Point;
  eyeDistance: number;
  /** degrees; yaw > 0: face turned toward the image's right (the subject's left) */
  yaw: number;
  /** degrees; pitch > 0: face tilted up */
  pitch: number;
  /** degrees; roll > 0: head tilted clockwise on screen (the subject's left eye lower) */
  roll: number;
  /** inner-lip gap relative to mouth width */
  mouthOpen: number;
  /** eye aspect ratio (lid gap / eye width), mean of both eyes; ~0.25-0.35 open, < ~0.15 closed */
  eyeAspect: number;
}

const deg = (rad: number) => (rad * 180) / Math.PI;

function eyeAspect(mesh: readonly MeshPoint[], e: { corners: readonly number[]; upper: readonly number[]; lower: readonly number[] }): number {
  const width = distance(mesh[e.corners[0]!]!, mesh[e.corners[1]!]!);
  const gap = (distance(mesh[e.upper[0]!]!, mesh[e.lower[0]!]!) + distance(mesh[e.upper[1]!]!, mesh[e.lower[1]!]!)) / 2;
  return width > 0 ? gap / width : 0;
}

export function faceGeometry(mesh: readonly MeshPoint[]): FaceGeometry {
  const leftEye = mean(mesh, MESH.leftEye);
  const rightEye = mean(mesh, MESH.rightEye);
  const rollRad = Math.atan2(leftEye.y - rightEye.y, leftEye.x - rightEye.x);
  // measure yaw and pitch in the roll-corrected frame
  const c = Math.cos(-rollRad);
  const s = Math.sin(-rollRad);
  const upright = (p: MeshPoint) => ({ x: c * p.x - s * p.y, y: s * p.x + c * p.y, z: p.z });
  const lc = upright(mesh[MESH.leftCheek]!);
  const rc = upright(mesh[MESH.rightCheek]!);
  const top = upright(mesh[MESH.forehead]!);
  const chin = upright(mesh[MESH.chin]!);
  const yaw = deg(Math.atan2(lc.z - rc.z, lc.x - rc.x));
  const pitch = deg(Math.atan2(top.z - chin.z, chin.y - top.y));
  const mouthLeft = mesh[MESH.mouthLeft]!;
  const mouthRight = mesh[MESH.mouthRight]!;
  const mouthWidth = distance(mouthLeft, mouthRight);
  return {
    leftEye,
    rightEye,
    chin: mesh[MESH.chin]!,
    noseTip: mesh[MESH.noseTip]!,
    mouthLeft,
    mouthRight,
    mouthCenter: mean(mesh, MESH.mouth),
    eyeDistance: distance(leftEye, rightEye),
    yaw,
    pitch,
    roll: deg(rollRad),
    mouthOpen: mouthWidth > 0 ? distance(mesh[MESH.upperLipInner]!, mesh[MESH.lowerLipInner]!) / mouthWidth : 0,
    eyeAspect: (eyeAspect(mesh, MESH.leftEyeAspect) + eyeAspect(mesh, MESH.rightEyeAspect)) / 2,
  };
}

export function eyesMidpoint(g: FaceGeometry): Point {
  return midpoint(g.leftEye, g.rightEye);
}
