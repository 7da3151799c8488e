// A recording, in-memory stand-in for the endpoint services: the router and the shims are the
// units under test, so the services only have to remember calls and keep data per app_id.
import { EngineError } from '../../../src/errors.ts';
import type { ServiceCall, ServiceName, Services } from '../../../src/api/services.ts';

export interface RecordedCall {
  name: ServiceName;
  call: ServiceCall<unknown>;
}

export interface FakeServices {
  services: Services;
  calls: RecordedCall[];
  /** the stored data as JSON (to compare before/after) */
  snapshot(): string;
}

export function fakeServices(): FakeServices {
  const calls: RecordedCall[] = [];
  // appId → gallery → subject → face ids
  const galleries = new Map<string, Map<string, Map<string, string[]>>>();
  // appId → media id → source name
  const media = new Map<string, Map<string, string>>();
  let nextId = 1;
  const account = <V>(m: Map<string, Map<string, V>>, appId: string) => {
    if (!m.has(appId)) m.set(appId, new Map());
    return m.get(appId)!;
  };
  const record = <P>(name: ServiceName, call: ServiceCall<P>) => calls.push({ name, call: call as ServiceCall<unknown> });
  const gallery = (appId: string, name: string) => {
    const g = galleries.get(appId)?.get(name);
    if (!g) throw new EngineError('GALLERY_NOT_FOUND');
    return g;
  };
  const box = { topLeftX: 1, topLeftY: 2, width: 3, height: 4 };

  const services: Services = {
    async detect(call) {
      record('detect', call);
      return { images: [{ status: 'Complete', width: 10, height: 10, file: 'image', faces: [] }] };
    },
    async enroll(call) {
      record('enroll', call);
      const { gallery_name, subject_id } = call.params;
      const g = account(galleries, call.appId);
      if (!g.has(gallery_name)) g.set(gallery_name, new Map());
      const s = g.get(gallery_name)!;
      const faceId = `face${nextId++}`;
      s.set(subject_id, [...(s.get(subject_id) ?? []), faceId]);
      return {
        face_id: faceId,
        images: [
          {
            attributes: { age: 30, gender: { type: 'M', maleConfidence: 1, femaleConfidence: 0 }, asian: 0, black: 0, hispanic: 0, white: 1, other: 0 },
            transaction: { status: 'success', ...box, gallery_name, subject_id, timestamp: '1', quality: 1, confidence: 1, face_id: 1 },
          },
        ],
      };
    },
    async verify(call) {
      record('verify', call);
      gallery(call.appId, call.params.gallery_name);
      return { images: [{ transaction: { status: 'success', subject_id: call.params.subject_id, gallery_name: call.params.gallery_name, quality: 1, confidence: 0.9, ...box } }] };
    },
    async recognize(call) {
      record('recognize', call);
      gallery(call.appId, call.params.gallery_name);
      return { images: [] };
    },
    async galleryListAll(call) {
      record('galleryListAll', call);
      return { status: 'Complete', gallery_ids: [...(galleries.get(call.appId)?.keys() ?? [])] };
    },
    async galleryView(call) {
      record('galleryView', call);
      return { status: 'Complete', subject_ids: [...gallery(call.appId, call.params.gallery_name).keys()] };
    },
    async galleryViewSubject(call) {
      record('galleryViewSubject', call);
      const faces = gallery(call.appId, call.params.gallery_name).get(call.params.subject_id);
      if (!faces) throw new EngineError('SUBJECT_NOT_FOUND');
      return { status: 'Complete', face_ids: faces.map((face_id) => ({ face_id, enrollment_timestamp: '1' })) };
    },
    async galleryRemove(call) {
      record('galleryRemove', call);
      gallery(call.appId, call.params.gallery_name);
      galleries.get(call.appId)!.delete(call.params.gallery_name);
      return { status: 'Complete', message: `gallery id ${call.params.gallery_name} was removed` };
    },
    async galleryRemoveSubject(call) {
      record('galleryRemoveSubject', call);
      const g = gallery(call.appId, call.params.gallery_name);
      if (!g.delete(call.params.subject_id)) throw new EngineError('SUBJECT_NOT_FOUND');
      return { status: 'Complete', message: `subject id ${call.params.subject_id} was removed` };
    },
    async mediaPost(call) {
      record('mediaPost', call);
      const id = `media${nextId++}`;
      const source = call.params.source;
      account(media, call.appId).set(id, typeof source === 'string' ? source : 'upload');
      return { id, status_code: 2, status_message: 'Processing' };
    },
    async mediaGet(call) {
      record('mediaGet', call);
      if (!media.get(call.appId)?.has(call.params.id)) return { id: call.params.id, status_code: 3, status_message: 'Error. Media record not found.' };
      return { id: call.params.id, status_code: 2, status_message: 'Processing' };
    },
    async mediaDelete(call) {
      record('mediaDelete', call);
      if (!media.get(call.appId)?.delete(call.params.id)) throw new EngineError('SUBJECT_NOT_FOUND', 'Unable to delete media.');
      return { id: call.params.id, status_code: '5', status_message: 'Deleted' };
    },
    async analyticsGet(call) {
      record('analyticsGet', call);
      return { id: call.params.id, status_code: 3, status_message: 'Error. Media record not found.' };
    },
  };

  const snapshot = () =>
    JSON.stringify({
      galleries: [...galleries].map(([a, g]) => [a, [...g].map(([n, s]) => [n, [...s]])]),
      media: [...media].map(([a, m]) => [a, [...m]]),
    });
  return { services, calls, snapshot };
}
