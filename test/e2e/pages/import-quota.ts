// Runs in test/e2e/pages/import-quota.html, driven by import-quota.e2e.test.ts: the engine's
// importGallery into subjects that already have templates, in an origin whose quota Chromium
// was told to keep small before the page first touched storage. The files are made here (their
// photos are tens of MB: cheaper than sending them from Node).
import { createEngine, type Engine, type GalleryFile } from '../../../src/index.ts';
import { EMBEDDING } from '../../../src/models/catalog.ts';
import { bytesToBase64, float32ToBase64 } from '../../../src/store/base64.ts';
import { expose } from '../../../tools/harness/page.ts';

let engine: Engine | undefined;

/** random bytes: IndexedDB compresses values, and zeros would take no room */
function randomBase64(n: number): string {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytesToBase64(bytes);
}

/** `subjects` subjects (s-0, s-1, …) with `perSubject` templates each, every template from its own photo of `photoBytes` (one random photo's bytes for all). */
function galleryFile(prefix: string, subjects: number, perSubject: number, photoBytes: number): GalleryFile {
  const photo = randomBase64(photoBytes);
  return {
    format: 'kairos-in-browser/gallery',
    version: 1,
    gallery_name: 'team',
    exported_at: new Date().toISOString(),
    subjects: Array.from({ length: subjects }, (_, s) => {
      const ids = Array.from({ length: perSubject }, (_, t) => `${prefix}-${s}-${t}`);
      return {
        subject_id: `s-${s}`,
        templates: ids.map((id) => ({
          face_id: id,
          enrollment_timestamp: String(Date.now()),
          model_id: EMBEDDING.id,
          embedding: float32ToBase64(Float32Array.from({ length: EMBEDDING.dim }, () => Math.random() - 0.5)),
          box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 },
          quality: 0.5,
          attributes: {},
          image_id: id,
        })),
        images: ids.map((id) => ({ image_id: id, mime_type: 'image/jpeg', base64: photo })),
      };
    }),
  };
}

async function open(): Promise<void> {
  engine = await createEngine({ backend: 'wasm', numThreads: 1, storageName: 'import-quota' });
}

/** importGallery's answer for a file made here: its result, or the error's code and message. */
async function importing(prefix: string, subjects: number, perSubject: number, photoBytes: number): Promise<unknown> {
  const answer = await engine!.importGallery({ file: galleryFile(prefix, subjects, perSubject, photoBytes) });
  return 'Errors' in answer ? { code: answer.Errors[0]!.ErrCode, message: answer.Errors[0]!.Message } : answer;
}

/** Everything the account holds, as listings, template details and a full export (embeddings, photos) show it. */
async function contents(): Promise<string> {
  const e = engine!;
  const out: unknown[] = [await e.galleryListAll({})];
  for (const gallery_name of (out[0] as { gallery_ids?: string[] }).gallery_ids ?? []) {
    const view = await e.galleryView({ gallery_name });
    out.push(view);
    for (const subject_id of 'subject_ids' in view ? view.subject_ids : []) out.push(await e.subjectTemplates({ gallery_name, subject_id }));
    const file = await e.exportGallery({ gallery_name, include_images: true });
    out.push('subjects' in file ? file.subjects : file);
  }
  return JSON.stringify(out);
}

const usage = async () => (await navigator.storage.estimate()).usage ?? 0;

expose({ open, importing, contents, usage });
