// /enroll, /verify, /recognize and /gallery/*: the recognition endpoints' semantics over the
// vision worker (faces and embeddings) and the gallery store.
import type { EnrollResponse, RecognizeResponse, VerifyResponse } from '../api/schemas.ts';
import type { ServiceCall, ServiceParams, Services } from '../api/services.ts';
import { EngineError } from '../errors.ts';
import type { ImageSource } from '../intake/image-input.ts';
import { FORMAT_MIME, type ImageFormat } from '../intake/sniff.ts';
import { EMBEDDING } from '../models/catalog.ts';
import type { RecognitionStore } from '../store/recognition-port.ts';
import { parseSelector, type SelectorFlags } from '../vision/selector.ts';
import type { FaceAnalysis } from '../worker/face-analyzer.ts';
import type { ImageAnalysis } from '../worker/image-analysis.ts';
import { similarityToConfidence } from './calibration.ts';
import { clippedBox, kairosAttributes } from './face-json.ts';
import { RECOGNIZE_DEFAULTS } from './recognition-config.ts';
import type { VisionPort } from './vision-port.ts';
import { headScaleOptions } from './head-scale.ts';

const round3 = (v: number) => Math.round(v * 1000) / 1000;

async function facesWithEmbeddings(
  vision: VisionPort,
  image: ImageSource,
  selector: SelectorFlags,
  minHeadScale: number | undefined,
  demographics: boolean,
  keepEncoded = false,
): Promise<ImageAnalysis> {
  const result = await vision.analyze(image, {
    ...headScaleOptions(minHeadScale),
    selector,
    demographics,
    emotion: false,
    keepMesh: false,
    embed: { models: [EMBEDDING.model], flip: EMBEDDING.flip },
    keepEncoded,
  });
  if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
  if (result.value.faces.length === 0) throw new EngineError('NO_FACES');
  return result.value;
}

function embeddingOf(face: FaceAnalysis): Float32Array {
  const e = face.embeddings?.[EMBEDDING.model];
  if (!e) throw new EngineError('CORRUPT_FACE_DATA', 'no embedding was computed for the face');
  return e;
}

/** Retention from 'lastSeen' counts from the last recognise or verify: recorded only where a gallery asks for it. */
async function seen(store: RecognitionStore, appId: string, gallery: string, subjects: string[]): Promise<void> {
  if (subjects.length === 0 || (await store.galleryOptions(appId, gallery)).retention?.from !== 'lastSeen') return;
  await store.touchSubjects(appId, gallery, subjects, Date.now());
}

export function recognitionServices(vision: VisionPort, store: RecognitionStore): Pick<
  Services,
  'enroll' | 'verify' | 'recognize' | 'galleryListAll' | 'galleryView' | 'galleryViewSubject' | 'galleryRemove' | 'galleryRemoveSubject'
> {
  return {
    async enroll({ appId, storeImage, params }: ServiceCall<ServiceParams<'enroll'>>): Promise<EnrollResponse> {
      // before any image work: a gallery that requires consent refuses an enroll without it
      if (!params.consent && (await store.galleryOptions(appId, params.gallery_name)).requireConsent) {
        throw new EngineError(
          'MISSING_PARAMETER',
          `consent is required: gallery ${params.gallery_name} enrolls only with a consent record (consent: given_by, given_at, purpose, text_version)`,
        );
      }
      const selector = parseSelector(params.selector);
      // base64 and URL images come back from the worker as the bytes it decoded (one download);
      // a decoded image (ImageBitmap, <img>, …) as a JPEG the worker encodes only because it is stored
      const keepEncoded = storeImage && !(params.image instanceof Blob);
      const analysis = await facesWithEmbeddings(vision, params.image, selector, params.minHeadScale, true, keepEncoded);
      if (!params.multiple_faces && analysis.faces.length > 1) throw new EngineError('TOO_MANY_FACES');
      const faces = params.multiple_faces ? analysis.faces : analysis.faces.slice(0, 1);
      const image = storeImage ? storedPhoto(params.image, analysis) : undefined;
      const refs = await store.addTemplates(
        appId,
        params.gallery_name,
        params.subject_id,
        faces.map((f) => ({
          embedding: embeddingOf(f),
          modelId: EMBEDDING.id,
          box: f.box,
          // the consent record is kept with each template: it travels and is removed with them
          attributes: { ...kairosAttributes(f), ...(params.consent ? { consent: params.consent } : {}) },
          quality: f.quality,
        })),
        image,
      );
      await store.audit([{ at: Date.now(), appId, event: 'enroll', gallery: params.gallery_name, subject: params.subject_id, count: refs.length }]);
      return {
        face_id: refs[0]!.faceId,
        images: faces.map((f, i) => ({
          attributes: kairosAttributes(f),
          transaction: {
            status: 'success',
            ...clippedBox(f, analysis.width, analysis.height),
            gallery_name: params.gallery_name,
            subject_id: params.subject_id,
            timestamp: refs[i]!.enrollmentTimestamp,
            quality: round3(f.quality),
            confidence: round3(f.detection.score),
            face_id: i + 1,
          },
        })),
      };
    },

    async verify({ appId, params }: ServiceCall<ServiceParams<'verify'>>): Promise<VerifyResponse> {
      // the gallery and subject are checked before any image work
      const templates = await store.subjectEmbeddings(appId, params.gallery_name, params.subject_id, EMBEDDING.id);
      if (templates.length === 0) throw new EngineError('NO_MATCH', 'no match found: the subject has no templates of the current face model');
      const selector = parseSelector(params.selector);
      const analysis = await facesWithEmbeddings(vision, params.image, selector, undefined, false);
      if (analysis.faces.length > 1) throw new EngineError('TOO_MANY_FACES');
      const face = analysis.faces[0]!;
      const query = embeddingOf(face);
      // the subject's best-matching template decides (max, not mean: one good enrolment photo suffices)
      let best = -1;
      for (const t of templates) best = Math.max(best, dot(query, t.embedding));
      await seen(store, appId, params.gallery_name, [params.subject_id]);
      await store.audit([{ at: Date.now(), appId, event: 'verify', gallery: params.gallery_name, subject: params.subject_id }]);
      return {
        images: [
          {
            transaction: {
              status: 'success',
              subject_id: params.subject_id,
              gallery_name: params.gallery_name,
              quality: round3(face.quality),
              confidence: round3(similarityToConfidence(best)),
              ...clippedBox(face, analysis.width, analysis.height),
              ...(face.liveness !== undefined ? { liveness: round3(face.liveness) } : {}),
            },
          },
        ],
      };
    },

    async recognize({ appId, params }: ServiceCall<ServiceParams<'recognize'>>): Promise<RecognizeResponse> {
      await store.requireGallery(appId, params.gallery_name); // 5004 before any image work
      const selector = parseSelector(params.selector);
      const analysis = await facesWithEmbeddings(vision, params.image, selector, params.minHeadScale, false);
      const threshold = params.threshold ?? RECOGNIZE_DEFAULTS.threshold;
      const limit = params.max_num_results ?? RECOGNIZE_DEFAULTS.maxNumResults;
      const images: RecognizeResponse['images'] = [];
      for (const [i, face] of analysis.faces.entries()) {
        const matches = await store.searchSubjects(appId, params.gallery_name, EMBEDDING.id, embeddingOf(face), limit);
        const candidates = matches
          .map((m) => ({ subject_id: m.subject, confidence: round3(similarityToConfidence(m.similarity)), enrollment_timestamp: m.enrollmentTimestamp }))
          .filter((c) => c.confidence >= threshold)
          .sort((a, b) => b.confidence - a.confidence)
          .slice(0, limit);
        const top = candidates[0];
        images.push({
          transaction: {
            status: top ? 'success' : 'failure',
            ...(top ? {} : { message: 'no match found' }),
            ...clippedBox(face, analysis.width, analysis.height),
            gallery_name: params.gallery_name,
            face_id: i + 1,
            ...(top ? { subject_id: top.subject_id, confidence: top.confidence } : {}),
            quality: round3(face.quality),
            ...(face.liveness !== undefined ? { liveness: round3(face.liveness) } : {}),
          },
          candidates,
        });
      }
      const matched = images.flatMap((image) => (image.transaction.subject_id ? [image.transaction.subject_id] : []));
      await seen(store, appId, params.gallery_name, matched);
      // one event per matched subject (who was recognised), or one without a subject when nobody was
      const at = Date.now();
      await store.audit(
        matched.length > 0
          ? [...new Set(matched)].map((subject) => ({ at, appId, event: 'recognize' as const, gallery: params.gallery_name, subject }))
          : [{ at, appId, event: 'recognize', gallery: params.gallery_name, count: 0 }],
      );
      return { images };
    },

    async galleryListAll({ appId }) {
      return { status: 'Complete', gallery_ids: await store.listGalleries(appId) };
    },

    async galleryView({ appId, params }) {
      return { status: 'Complete', subject_ids: await store.listSubjects(appId, params.gallery_name) };
    },

    async galleryViewSubject({ appId, params }) {
      const refs = await store.listTemplates(appId, params.gallery_name, params.subject_id);
      return { status: 'Complete', face_ids: refs.map((r) => ({ face_id: r.faceId, enrollment_timestamp: r.enrollmentTimestamp })) };
    },

    async galleryRemove({ appId, params }) {
      await store.removeGallery(appId, params.gallery_name);
      await store.audit([{ at: Date.now(), appId, event: 'remove', gallery: params.gallery_name }]);
      return { status: 'Complete', message: `gallery name ${params.gallery_name} was removed` };
    },

    async galleryRemoveSubject({ appId, params }) {
      await store.removeSubject(appId, params.gallery_name, params.subject_id, params.face_id);
      // removals never name the subject: an erased subject's name leaves the log with it
      await store.audit([{ at: Date.now(), appId, event: 'remove', gallery: params.gallery_name }]);
      return {
        status: 'Complete',
        message: params.face_id
          ? `face_id ${params.face_id} of subject id ${params.subject_id} was removed from gallery ${params.gallery_name}`
          : `subject id ${params.subject_id} was removed from gallery ${params.gallery_name}`,
      };
    },
  };
}

/**
 * The photo kept with the templates, whatever its transport: an upload as sent, base64 or a URL
 * as the bytes the worker decoded, a decoded image as the worker's JPEG of it; typed by its
 * content (the declared type may be wrong or absent).
 */
function storedPhoto(image: ImageSource, analysis: ImageAnalysis): Blob | undefined {
  const mimeType = FORMAT_MIME[analysis.format as ImageFormat];
  if (image instanceof Blob) return !mimeType || image.type === mimeType ? image : new Blob([image], { type: mimeType });
  const encoded = analysis.encoded;
  return encoded ? new Blob([encoded.bytes as Uint8Array<ArrayBuffer>], { type: encoded.mimeType }) : undefined;
}

/** Both embeddings are L2-normalised, so the dot product is their cosine similarity. */
function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
