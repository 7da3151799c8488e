// Every field of every success body, and where its value comes from. The rule (docs/api.md,
// "No made-up values"): a value the engine does not measure is never sent as if measured; it
// carries the documented unknown value of its type instead, so existing clients still parse it.
// test/unit/field-audit.test.ts and test/browser/field-audit.test.ts hold every response to this list.

/**
 * The unknown value of each JSON type. Numbers: -1, the original service's own "could not be
 * located" value (facts.md), outside every range a measurement can take (fractions 0–1, scores
 * 0–100, codes ≥ 0), so no client can read it as a measurement. Strings: "Unknown", outside
 * every enumeration the interface lists ("Yes"/"No", "Male"/"Female", the age groups).
 */
export const UNKNOWN = { number: -1, string: 'Unknown' } as const;

/**
 * - measured: computed from the pixels by a model or by geometry on the model's output
 * - derived: computed from measured values by a documented formula (e.g. age → age group)
 * - request: echoes the request or the store (names, ids, timestamps, the file name)
 * - protocol: fixed by the interface (status words, indices)
 * - unmeasured: no model here measures it; always the UNKNOWN value of its type
 */
export type FieldSource = 'measured' | 'derived' | 'request' | 'protocol' | 'unmeasured';

export interface AuditedField {
  source: FieldSource;
  /** what the value is computed from, or why it is unknown */
  from: string;
}

const face = (prefix: string): Record<string, AuditedField> => ({
  [`${prefix}.topLeftX`]: { source: 'measured', from: 'face-mesh bounding box, clipped to the image' },
  [`${prefix}.topLeftY`]: { source: 'measured', from: 'face-mesh bounding box, clipped to the image' },
  [`${prefix}.width`]: { source: 'measured', from: 'face-mesh bounding box, clipped to the image' },
  [`${prefix}.height`]: { source: 'measured', from: 'face-mesh bounding box, clipped to the image' },
});

const attributes = (prefix: string): Record<string, AuditedField> => ({
  [`${prefix}.age`]: { source: 'measured', from: "mean of GEAR's and face-api AgeGenderNet's ages" },
  [`${prefix}.gender.type`]: { source: 'derived', from: 'M when the male probability > 0.5' },
  [`${prefix}.gender.maleConfidence`]: { source: 'measured', from: "face-api AgeGenderNet's gender (GEAR's is only the fallback)" },
  [`${prefix}.gender.femaleConfidence`]: { source: 'derived', from: '1 − maleConfidence' },
  [`${prefix}.asian`]: { source: 'measured', from: 'GEAR race: asian + indian' },
  [`${prefix}.black`]: { source: 'measured', from: 'GEAR race: black' },
  [`${prefix}.white`]: { source: 'measured', from: 'GEAR race: white' },
  [`${prefix}.other`]: { source: 'measured', from: 'GEAR race: other' },
  [`${prefix}.hispanic`]: { source: 'unmeasured', from: 'GEAR has no hispanic class; no model here measures it (was a constant 0)' },
  [`${prefix}.lips`]: { source: 'measured', from: 'inner-lip gap / mouth width from the face mesh' },
  [`${prefix}.liveness`]: { source: 'measured', from: 'anti-spoof + liveness models (liveness selector only)' },
  // `glasses` is not sent at all by the face endpoints (absent is allowed by the interface)
});

const recognitionTransaction = (prefix: string): Record<string, AuditedField> => ({
  ...face(prefix),
  [`${prefix}.status`]: { source: 'protocol', from: 'success / failure' },
  [`${prefix}.gallery_name`]: { source: 'request', from: 'the request' },
  [`${prefix}.subject_id`]: { source: 'request', from: 'the request (verify) or the best match (recognize)' },
  [`${prefix}.quality`]: { source: 'measured', from: 'sharpness, eye distance, pose and detector score (docs/detection.md)' },
  [`${prefix}.confidence`]: { source: 'measured', from: 'calibrated embedding similarity (verify, recognize) or detector score (enroll)' },
  [`${prefix}.liveness`]: { source: 'measured', from: 'anti-spoof + liveness models (liveness selector only)' },
});

const emotions = (prefix: string, from: string): Record<string, AuditedField> =>
  Object.fromEntries(['anger', 'disgust', 'fear', 'joy', 'sadness', 'surprise'].map((e) => [`${prefix}.${e}`, { source: 'measured', from }]));

/** Leaf paths of each success body ([] = every array element). */
export const FIELD_AUDIT: Readonly<Record<string, Readonly<Record<string, AuditedField>>>> = {
  detect: {
    'images[].status': { source: 'protocol', from: 'Complete' },
    'images[].width': { source: 'measured', from: 'the decoded image, EXIF rotation applied' },
    'images[].height': { source: 'measured', from: 'the decoded image, EXIF rotation applied' },
    'images[].file': { source: 'request', from: 'the upload name, the URL path, or "image"' },
    ...face('images[].faces[]'),
    'images[].faces[].chinTipX': { source: 'measured', from: 'face mesh' },
    'images[].faces[].chinTipY': { source: 'measured', from: 'face mesh' },
    'images[].faces[].rightEyeCenterX': { source: 'measured', from: 'face mesh eye contour centre' },
    'images[].faces[].rightEyeCenterY': { source: 'measured', from: 'face mesh eye contour centre' },
    'images[].faces[].leftEyeCenterX': { source: 'measured', from: 'face mesh eye contour centre' },
    'images[].faces[].leftEyeCenterY': { source: 'measured', from: 'face mesh eye contour centre' },
    'images[].faces[].eyeDistance': { source: 'measured', from: 'distance of the eye centres' },
    'images[].faces[].yaw': { source: 'measured', from: 'face mesh head pose' },
    'images[].faces[].pitch': { source: 'measured', from: 'face mesh head pose' },
    'images[].faces[].roll': { source: 'measured', from: 'face mesh head pose' },
    'images[].faces[].confidence': { source: 'measured', from: 'detector score' },
    'images[].faces[].quality': { source: 'measured', from: 'sharpness, eye distance, pose and detector score (docs/detection.md)' },
    'images[].faces[].face_id': { source: 'protocol', from: 'index of the face in the photo' },
    ...attributes('images[].faces[].attributes'),
  },
  enroll: {
    face_id: { source: 'request', from: 'id of the new template' },
    ...attributes('images[].attributes'),
    ...recognitionTransaction('images[].transaction'),
    'images[].transaction.timestamp': { source: 'request', from: 'enrolment time' },
    'images[].transaction.face_id': { source: 'protocol', from: 'index of the face in the photo' },
  },
  verify: recognitionTransaction('images[].transaction'),
  recognize: {
    ...recognitionTransaction('images[].transaction'),
    'images[].transaction.message': { source: 'protocol', from: '"no match found" on failure' },
    'images[].transaction.face_id': { source: 'protocol', from: 'index of the face in the photo' },
    'images[].candidates[].subject_id': { source: 'request', from: 'the gallery' },
    'images[].candidates[].confidence': { source: 'measured', from: 'calibrated embedding similarity' },
    'images[].candidates[].enrollment_timestamp': { source: 'request', from: 'the store' },
  },
  media: {
    id: { source: 'request', from: 'the new media id' },
    length: { source: 'measured', from: 'the video duration (0 for an image)' },
    'media_info.file': { source: 'request', from: 'the upload name or the URL path' },
    'media_info.length': { source: 'measured', from: 'the video duration (0 for an image)' },
    'media_info.mime_type': { source: 'measured', from: 'sniffed from the bytes' },
    'media_info.type': { source: 'measured', from: 'sniffed from the bytes' },
    status_code: { source: 'protocol', from: 'the job state' },
    status_message: { source: 'protocol', from: 'the job state' },
    'frames[].time': { source: 'measured', from: 'media time of the sampled frame' },
    'frames[].people[].person_id': { source: 'measured', from: 'the tracker (IoU, motion, embedding)' },
    'frames[].people[].appearance.glasses': { source: 'unmeasured', from: 'no model here detects glasses (was a constant "No")' },
    'frames[].people[].demographics.age_group': { source: 'derived', from: 'median measured age of the person → group' },
    'frames[].people[].demographics.gender': { source: 'derived', from: 'mean measured male probability of the person' },
    'frames[].people[].distance': { source: 'derived', from: 'eye distance in pixels, 63 mm IPD, 60° camera FOV (an estimate)' },
    ...emotions('frames[].people[].emotions', 'face-api expression model'),
    'frames[].people[].face.x': { source: 'measured', from: 'face-mesh box' },
    'frames[].people[].face.y': { source: 'measured', from: 'face-mesh box' },
    'frames[].people[].face.width': { source: 'measured', from: 'face-mesh box' },
    'frames[].people[].face.height': { source: 'measured', from: 'face-mesh box' },
    'frames[].people[].pose.pitch': { source: 'measured', from: 'face mesh head pose' },
    'frames[].people[].pose.roll': { source: 'measured', from: 'face mesh head pose' },
    'frames[].people[].pose.yaw': { source: 'measured', from: 'face mesh head pose' },
    'frames[].people[].tracking.attention': { source: 'derived', from: 'head pose relative to the camera' },
    'frames[].people[].tracking.blink': { source: 'measured', from: 'eye aspect ratio from the face mesh' },
    'frames[].people[].tracking.dwell': { source: 'derived', from: 'sightings × sampling interval' },
    'frames[].people[].tracking.glances': { source: 'derived', from: 'times attention began' },
    'frames[].people[].start_time': { source: 'derived', from: 'POST time + media time of the first sighting' },
    'frames[].people[].end_time': { source: 'derived', from: 'POST time + media time of this frame' },
    'frames[].people[].landmarks[]': { source: 'measured', from: '49 named face-mesh points (landmarks=1)' },
  },
  analytics: {
    id: { source: 'request', from: 'the media id' },
    'media_info.filename': { source: 'request', from: 'media_info.file' },
    'media_info.length': { source: 'measured', from: 'as the media object' },
    'media_info.mime_type': { source: 'measured', from: 'as the media object' },
    'media_info.type': { source: 'measured', from: 'as the media object' },
    'impressions[].id': { source: 'measured', from: 'the person_id' },
    'impressions[].appearance.glasses': { source: 'unmeasured', from: 'no model here detects glasses (was a constant 0)' },
    ...emotions('impressions[].average_emotion', 'mean of the person’s measured emotions'),
    'impressions[].demographics.age_group': { source: 'derived', from: 'the person’s age group' },
    'impressions[].demographics.gender': { source: 'derived', from: 'the person’s gender as a code (0 Male, 1 Female)' },
    'impressions[].duration': { source: 'derived', from: 'first to last sighting + one interval' },
    'impressions[].emotion_score.negative': { source: 'derived', from: 'anger + disgust + fear + sadness' },
    'impressions[].emotion_score.neutral': { source: 'derived', from: '100 − negative − positive' },
    'impressions[].emotion_score.positive': { source: 'derived', from: 'joy' },
    'impressions[].tracking.attention': { source: 'derived', from: 'mean attention' },
    'impressions[].tracking.dwell': { source: 'derived', from: 'last dwell' },
    'impressions[].tracking.glances': { source: 'derived', from: 'last glances' },
  },
};

/** The fields no model here measures, by endpoint (each always carries its UNKNOWN value). */
export function unmeasuredFields(endpoint: string): string[] {
  return Object.entries(FIELD_AUDIT[endpoint] ?? {})
    .filter(([, f]) => f.source === 'unmeasured')
    .map(([path]) => path);
}

/**
 * Every leaf of a JSON value as [path, value], arrays written `[]` (the audit's notation);
 * a landmark list (array of one-key objects) counts as one leaf.
 */
export function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) {
    if (path.endsWith('landmarks')) return [[`${path}[]`, value]];
    return value.flatMap((v) => leaves(v, `${path}[]`));
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  }
  return [[path, value]];
}
