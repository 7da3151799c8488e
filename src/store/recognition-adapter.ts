// The recognition services' storage port (recognition-port.ts) over the
// IndexedDB gallery store and its in-memory search index.
import { EngineError } from '../errors.ts';
import type { GalleryStore } from './gallery-store.ts';
import type { RecognitionStore } from './recognition-port.ts';
import type { GallerySearchIndex } from './search-index.ts';

/** In the page (tests) or in the search index worker (RemoteSearchIndex, the engine's). */
export type SubjectSearch = Pick<GallerySearchIndex, 'searchSubjects'>;

export function recognitionStore(store: GalleryStore, index: SubjectSearch): RecognitionStore {
  const ref = (t: { faceId: string; enrollmentTimestamp: string }) => ({ faceId: t.faceId, enrollmentTimestamp: t.enrollmentTimestamp });
  return {
    async addTemplates(appId, gallery, subject, templates, image) {
      const stored = await store.addTemplates(
        appId,
        gallery,
        subject,
        templates.map((t) => ({
          modelId: t.modelId,
          embedding: t.embedding,
          box: { topLeftX: t.box.x, topLeftY: t.box.y, width: t.box.width, height: t.box.height },
          attributes: JSON.parse(JSON.stringify(t.attributes)) as Record<string, never>,
          quality: t.quality,
        })),
        image,
      );
      return stored.map(ref);
    },
    listGalleries: (appId) => store.listGalleries(appId),
    galleryOptions: (appId, gallery) => store.galleryOptions(appId, gallery),
    audit: (events) => store.audit.note(events),
    touchSubjects: (appId, gallery, subjects, at) => store.touchSubjects(appId, gallery, subjects, at),
    listSubjects: (appId, gallery) => store.listSubjects(appId, gallery),
    async requireGallery(appId, gallery) {
      if (!(await store.galleryExists(appId, gallery))) throw new EngineError('GALLERY_NOT_FOUND');
    },
    async listTemplates(appId, gallery, subject) {
      return (await store.listTemplates(appId, gallery, subject)).map(ref);
    },
    async subjectEmbeddings(appId, gallery, subject, modelId) {
      return (await store.templatesForSubject(appId, gallery, subject, modelId)).map((t) => ({ ...ref(t), embedding: t.embedding }));
    },
    async removeGallery(appId, gallery) {
      await store.removeGallery(appId, gallery);
    },
    async removeSubject(appId, gallery, subject, faceId) {
      await store.removeSubject(appId, gallery, subject, faceId);
    },
    searchSubjects: (appId, gallery, modelId, query, limit) => index.searchSubjects({ appId, gallery, modelId }, query, limit),
  };
}
