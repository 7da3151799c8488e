// The portable gallery file: one gallery of one account as JSON, for backups and for moving a
// gallery between browsers, apps or accounts (docs/store.md, "Gallery files"). Pure: the
// store reads and writes, this module only encodes and decodes.
//
// Versioned by `format` + `version`. A reader refuses any other version outright rather than
// guessing; within version 1, readers ignore fields they do not know, so an optional field
// may be added without a new version. Anything that changes the meaning of an existing field
// (say int8 embeddings) is version 2.
import { z } from 'zod';
import { IdSchema } from '../api/params.ts';
import { EngineError } from '../errors.ts';
import { base64ToBytes, base64ToFloat32, bytesToBase64, float32ToBase64 } from './base64.ts';
import type { NewTemplate, StoredTemplate } from './schema.ts';

export const GALLERY_FILE_FORMAT = 'kairos-in-browser/gallery';
export const GALLERY_FILE_VERSION = 1;

// The file's own schemas, not the store's: a change of the IndexedDB records must not change
// the file format by accident.

/** Face box in the enrolled photo's pixels (upright, EXIF orientation applied). */
const FileBoxSchema = z.object({ topLeftX: z.number(), topLeftY: z.number(), width: z.number(), height: z.number() });

/** A stored photo, once per subject however many of its templates came from it. */
export const GalleryFileImageSchema = z.object({
  /** unique within the subject; templates refer to it by `image_id` */
  image_id: IdSchema,
  /** the Blob's type as it was stored ("" when the upload had none) */
  mime_type: z.string().max(256),
  base64: z.string(),
});

export const GalleryFileTemplateSchema = z.object({
  face_id: IdSchema,
  /** epoch milliseconds as a digit string, as /gallery/view_subject lists it */
  // at most 15 digits: a safe integer, as the search index holds it as a number
  enrollment_timestamp: z.string().regex(/^\d{1,15}$/, 'expected epoch milliseconds as a digit string'),
  /** the embedding model and preprocessing (e.g. "faceapi-recognition@1.7.15+flip") */
  model_id: z.string().min(1).max(256),
  /** base64 of the embedding as float32 little-endian */
  embedding: z.string(),
  box: FileBoxSchema,
  quality: z.number(),
  /** what the enroll response said about the face (age, gender, ...), as stored */
  attributes: z.record(z.string(), z.json()),
  /** the photo it was enrolled from, when stored and exported: an `image_id` of its subject */
  image_id: IdSchema.optional(),
});

export const GalleryFileSubjectSchema = z.object({
  subject_id: IdSchema,
  /** enrollment order */
  templates: z.array(GalleryFileTemplateSchema).min(1, 'a subject has at least one template'),
  images: z.array(GalleryFileImageSchema).optional(),
});

export const GalleryFileSchema = z.object({
  format: z.literal(GALLERY_FILE_FORMAT),
  version: z.literal(GALLERY_FILE_VERSION),
  gallery_name: IdSchema,
  /** ISO 8601 */
  exported_at: z.iso.datetime({ offset: true }),
  subjects: z.array(GalleryFileSubjectSchema).min(1, 'a gallery has at least one subject'),
});

export type GalleryFile = z.infer<typeof GalleryFileSchema>;
export type GalleryFileSubject = z.infer<typeof GalleryFileSubjectSchema>;
export type GalleryFileTemplate = z.infer<typeof GalleryFileTemplateSchema>;

// ---------------------------------------------------------------- encode

/** A stored photo to export, with its bytes already read from the Blob. */
export interface ExportImage {
  subject: string;
  imageKey: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface GalleryExport {
  gallery: string;
  exportedAt: Date;
  /** the gallery's templates in key order (by subject, then enrollment) */
  templates: readonly StoredTemplate[];
  /** stored photos to include; templates whose photo is not here are exported without one */
  images?: readonly ExportImage[];
}

export function encodeGalleryFile({ gallery, exportedAt, templates, images = [] }: GalleryExport): GalleryFile {
  const imagesOf = new Map<string, Map<string, ExportImage>>();
  for (const image of images) {
    const own = imagesOf.get(image.subject) ?? new Map<string, ExportImage>();
    own.set(image.imageKey, image);
    imagesOf.set(image.subject, own);
  }
  const subjects = new Map<string, GalleryFileSubject>();
  for (const t of templates) {
    let subject = subjects.get(t.subject);
    if (!subject) subjects.set(t.subject, (subject = { subject_id: t.subject, templates: [] }));
    const image = t.imageKey === undefined ? undefined : imagesOf.get(t.subject)?.get(t.imageKey);
    if (image && !subject.images?.some((i) => i.image_id === image.imageKey)) {
      (subject.images ??= []).push({ image_id: image.imageKey, mime_type: image.mimeType, base64: bytesToBase64(image.bytes) });
    }
    subject.templates.push({
      face_id: t.faceId,
      enrollment_timestamp: t.enrollmentTimestamp,
      model_id: t.modelId,
      embedding: float32ToBase64(t.embedding),
      box: { topLeftX: t.box.topLeftX, topLeftY: t.box.topLeftY, width: t.box.width, height: t.box.height },
      quality: t.quality,
      attributes: t.attributes,
      ...(image ? { image_id: image.imageKey } : {}),
    });
  }
  return {
    format: GALLERY_FILE_FORMAT,
    version: GALLERY_FILE_VERSION,
    gallery_name: gallery,
    exported_at: exportedAt.toISOString(),
    subjects: [...subjects.values()],
  };
}

// ---------------------------------------------------------------- decode

/** One template ready for GalleryStore.importTemplates. */
export interface DecodedTemplate {
  subject: string;
  template: NewTemplate;
  faceId: string;
  enrollmentTimestamp: string;
  /** the same Blob for every template of the subject that came from the same photo */
  image?: Blob;
}

export interface DecodedGallery {
  gallery: string;
  exportedAt: string;
  subjects: string[];
  templates: DecodedTemplate[];
}

export interface DecodeOptions {
  /**
   * The embedding models accepted, with their dimensions: a template of another model, or of
   * another length, could never be compared with the engine's queries. Absent: any.
   */
  models?: Readonly<Record<string, number>>;
}

const invalid = (detail: string) => new EngineError('INVALID_PARAMETER', `invalid value for parameter file: ${detail}`);
const corrupt = (detail: string) => new EngineError('CORRUPT_FACE_DATA', `corrupt face data in the gallery file: ${detail}`);

function where(subject: string, index: number, faceId: string): string {
  return `subject ${JSON.stringify(subject)}, template ${index + 1} (face_id ${JSON.stringify(faceId)})`;
}

/** The file's format and version, checked first so a newer file gets a message that says so. */
function checkHeader(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('a gallery file is a JSON object');
  const { format, version } = value as { format?: unknown; version?: unknown };
  if (format !== GALLERY_FILE_FORMAT) throw invalid(`not a gallery file (format is ${JSON.stringify(format) ?? 'missing'}, expected "${GALLERY_FILE_FORMAT}")`);
  if (version !== GALLERY_FILE_VERSION) {
    throw invalid(
      typeof version === 'number' && version > GALLERY_FILE_VERSION
        ? `gallery file version ${version} is newer than this engine reads (${GALLERY_FILE_VERSION}); update the app`
        : `unsupported gallery file version ${JSON.stringify(version) ?? 'missing'} (this engine reads ${GALLERY_FILE_VERSION})`,
    );
  }
}

function parseFile(value: unknown): GalleryFile {
  checkHeader(value);
  const parsed = GalleryFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalid(`${issue.path.map(String).join('.') || 'file'}: ${issue.message}`);
}

function decodeEmbedding(t: GalleryFileTemplate, at: string, models: DecodeOptions['models']): Float32Array {
  const dim = models?.[t.model_id];
  if (models && dim === undefined) {
    const accepted = Object.entries(models).map(([id, n]) => `"${id}" (${n} floats)`).join(', ');
    throw invalid(`${at}: embeddings of model "${t.model_id}" cannot be compared with this engine's; it recognises with ${accepted}`);
  }
  const embedding = base64ToFloat32(t.embedding);
  if ('error' in embedding) throw corrupt(`${at}: the embedding ${embedding.error}`);
  if (embedding.length === 0) throw corrupt(`${at}: the embedding is empty`);
  if (dim !== undefined && embedding.length !== dim) throw corrupt(`${at}: the embedding has ${embedding.length} floats; model "${t.model_id}" makes ${dim}`);
  if (!embedding.every(Number.isFinite)) throw corrupt(`${at}: the embedding holds a value that is not a finite number`);
  return embedding;
}

function decodeImages(subject: GalleryFileSubject): Map<string, Blob> {
  const blobs = new Map<string, Blob>();
  for (const image of subject.images ?? []) {
    if (blobs.has(image.image_id)) throw invalid(`subject ${JSON.stringify(subject.subject_id)}: image_id ${JSON.stringify(image.image_id)} appears twice`);
    const bytes = base64ToBytes(image.base64);
    if (!bytes) throw invalid(`subject ${JSON.stringify(subject.subject_id)}: image ${JSON.stringify(image.image_id)} is not valid base64`);
    blobs.set(image.image_id, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: image.mime_type }));
  }
  return blobs;
}

/**
 * Checks a parsed gallery file completely and decodes it. Throws INVALID_PARAMETER (1003) for
 * a file that is not a version-1 gallery file, is malformed, repeats a subject or face id, or
 * holds embeddings of a model not accepted; CORRUPT_FACE_DATA (5005) for an embedding that is
 * not canonical base64, not whole float32 values, of the wrong length, or not finite.
 */
export function decodeGalleryFile(value: unknown, options: DecodeOptions = {}): DecodedGallery {
  const file = parseFile(value);
  const subjects = new Set<string>();
  const faceIds = new Set<string>();
  const templates: DecodedTemplate[] = [];
  for (const s of file.subjects) {
    if (subjects.has(s.subject_id)) throw invalid(`subject ${JSON.stringify(s.subject_id)} appears twice`);
    subjects.add(s.subject_id);
    const images = decodeImages(s);
    s.templates.forEach((t, i) => {
      const at = where(s.subject_id, i, t.face_id);
      if (faceIds.has(t.face_id)) throw invalid(`${at}: the face_id appears twice in the file`);
      faceIds.add(t.face_id);
      const image = t.image_id === undefined ? undefined : images.get(t.image_id);
      if (t.image_id !== undefined && !image) throw invalid(`${at}: image_id ${JSON.stringify(t.image_id)} is not among the subject's images`);
      templates.push({
        subject: s.subject_id,
        faceId: t.face_id,
        enrollmentTimestamp: t.enrollment_timestamp,
        template: { modelId: t.model_id, embedding: decodeEmbedding(t, at, options.models), box: t.box, attributes: t.attributes, quality: t.quality },
        ...(image ? { image } : {}),
      });
    });
  }
  return { gallery: file.gallery_name, exportedAt: file.exported_at, subjects: [...subjects], templates };
}
