// What the recognition services (src/service/recognition.ts, src/live/recognition.ts) need from
// storage and search, implemented over IndexedDB and the in-memory search index by
// recognition-adapter.ts; see src/engine/engine.ts for the wiring.
import type { Attributes } from '../api/detect-schema.ts';
import type { AuditEvent, GalleryOptions } from './schema.ts';

export interface NewTemplate {
  embedding: Float32Array;
  modelId: string;
  box: { x: number; y: number; width: number; height: number };
  attributes: Attributes;
  quality: number;
}

export interface TemplateRef {
  faceId: string;
  enrollmentTimestamp: string;
}

export interface SubjectMatch extends TemplateRef {
  subject: string;
  /** cosine similarity of the best template of this subject */
  similarity: number;
}

export interface RecognitionStore {
  /** one transaction: every template is stored or none; image stored only when given */
  addTemplates(appId: string, gallery: string, subject: string, templates: NewTemplate[], image?: Blob): Promise<TemplateRef[]>;
  listGalleries(appId: string): Promise<string[]>;
  /** the gallery's privacy options (requireConsent, retention) */
  galleryOptions(appId: string, gallery: string): Promise<GalleryOptions>;
  /** appends to the audit log (never images or embeddings); best effort: never rejects */
  audit(events: AuditEvent[]): Promise<void>;
  /** retention from 'lastSeen': these subjects were recognised or verified at `at` */
  touchSubjects(appId: string, gallery: string, subjects: string[], at: number): Promise<void>;
  /** 5004 when the gallery does not exist */
  listSubjects(appId: string, gallery: string): Promise<string[]>;
  /** 5004 when the gallery does not exist; one key lookup (listing 20k subjects blocked the page ~60 ms) */
  requireGallery(appId: string, gallery: string): Promise<void>;
  /** 5004 / 5003 */
  listTemplates(appId: string, gallery: string, subject: string): Promise<TemplateRef[]>;
  /** the subject's templates of one model, 5004 / 5003 */
  subjectEmbeddings(appId: string, gallery: string, subject: string, modelId: string): Promise<(TemplateRef & { embedding: Float32Array })[]>;
  removeGallery(appId: string, gallery: string): Promise<void>;
  /** the whole subject, or one template with faceId; 5004 / 5003 */
  removeSubject(appId: string, gallery: string, subject: string, faceId?: string): Promise<void>;
  /** best template per subject, most similar first; 5004 when the gallery does not exist */
  searchSubjects(appId: string, gallery: string, modelId: string, query: Float32Array, limit: number): Promise<SubjectMatch[]>;
}
