// Gallery tools beyond the Kairos interface (typed calls only, no HTTP route): export and
// import of whole galleries as gallery files (src/store/gallery-file.ts), and template
// details and stored photos for browsing a gallery. Errors are the service's own kinds
// (1002/1003, 5003, 5004, 5005), so callers handle them like any endpoint's.
import { z } from 'zod';
import { IdSchema } from '../api/params.ts';
import type { ServiceCall } from '../api/services.ts';
import { EngineError } from '../errors.ts';
import { EMBEDDING } from '../models/catalog.ts';
import { decodeGalleryFile, encodeGalleryFile, type GalleryFile } from '../store/gallery-file.ts';
import type { GalleryStore } from '../store/gallery-store.ts';
import type { Box } from '../store/schema.ts';

export const ExportGalleryRequestSchema = z.object({
  gallery_name: IdSchema,
  /** include the stored photos (base64: files grow by a third of the photos' size); default false */
  include_images: z.boolean({ error: 'expected true or false' }).optional(),
});

export const ImportGalleryRequestSchema = z.object({
  /** a GalleryFile object, its JSON text, or a Blob/File of that text */
  file: z.custom<unknown>((v) => v !== undefined && v !== null, { error: 'expected a gallery file' }),
  /** import under this name instead of the file's */
  gallery_name: IdSchema.optional(),
});

export const TemplateImageRequestSchema = z.object({ gallery_name: IdSchema, subject_id: IdSchema, face_id: IdSchema });

export const SubjectTemplatesRequestSchema = z.object({ gallery_name: IdSchema, subject_id: IdSchema });

export interface ImportGalleryResult {
  gallery_name: string;
  /** the file's subjects, in its order (new or added to) */
  subject_ids: string[];
  /** templates written */
  templates: number;
}

export interface TemplateImage {
  image: Blob;
  box: Box;
}

export interface TemplateDetails {
  face_id: string;
  enrollment_timestamp: string;
  quality: number;
  /** where the face is in the enrolled photo */
  box: Box;
  /** whether the photo is stored (templateImage returns it) */
  has_image: boolean;
  attributes: Record<string, unknown>;
}

export type GalleryToolsStore = Pick<GalleryStore, 'readGallery' | 'importTemplates' | 'templateImage' | 'templatesForSubject'>;

/** The embedding models a gallery file may bring: only the one recognition compares. */
const ACCEPTED_MODELS = { [EMBEDDING.id]: EMBEDDING.dim } as const;

/** The `file` parameter as parsed JSON: objects as they are, text and Blobs parsed. */
async function fileValue(file: unknown): Promise<unknown> {
  const text = file instanceof Blob ? await file.text() : file;
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new EngineError('INVALID_PARAMETER', `invalid value for parameter file: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

export function galleryTools(store: GalleryToolsStore) {
  return {
    async exportGallery({ appId, params }: ServiceCall<z.output<typeof ExportGalleryRequestSchema>>): Promise<GalleryFile> {
      const withImages = params.include_images ?? false;
      const contents = await store.readGallery(appId, params.gallery_name, { images: withImages });
      const images = await Promise.all(
        contents.images.map(async (i) => ({ subject: i.subject, imageKey: i.imageKey, mimeType: i.blob.type, bytes: new Uint8Array(await i.blob.arrayBuffer()) })),
      );
      return encodeGalleryFile({ gallery: params.gallery_name, exportedAt: new Date(), templates: contents.templates, images });
    },

    /** Everything is decoded and checked before the one write transaction starts. */
    async importGallery({ appId, storeImage, signal, params }: ServiceCall<z.output<typeof ImportGalleryRequestSchema>>): Promise<ImportGalleryResult> {
      const decoded = decodeGalleryFile(await fileValue(params.file), { models: ACCEPTED_MODELS });
      const gallery = params.gallery_name ?? decoded.gallery;
      // a caller that gave up before the write must not find the gallery changed later
      signal?.throwIfAborted();
      const faceIds = await store.importTemplates(
        appId,
        gallery,
        decoded.templates.map(({ image, ...t }) => ({ ...t, ...(storeImage && image ? { image } : {}) })),
      );
      return { gallery_name: gallery, subject_ids: decoded.subjects, templates: faceIds.length };
    },

    async templateImage({ appId, params }: ServiceCall<z.output<typeof TemplateImageRequestSchema>>): Promise<TemplateImage | null> {
      const { template, image } = await store.templateImage(appId, params.gallery_name, params.subject_id, params.face_id);
      return image ? { image, box: template.box } : null;
    },

    async subjectTemplates({ appId, params }: ServiceCall<z.output<typeof SubjectTemplatesRequestSchema>>): Promise<TemplateDetails[]> {
      const templates = await store.templatesForSubject(appId, params.gallery_name, params.subject_id);
      return templates.map((t) => ({
        face_id: t.faceId,
        enrollment_timestamp: t.enrollmentTimestamp,
        quality: t.quality,
        box: t.box,
        has_image: t.imageKey !== undefined,
        attributes: t.attributes,
      }));
    },
  };
}

export type GalleryTools = ReturnType<typeof galleryTools>;
