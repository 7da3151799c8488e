// Between the three shapes of a template: the store's (Float32Array, Blob), the outbox's
// (LocalChange) and the wire's (base64, sealed or plain). Pure apart from WebCrypto.
import { base64ToBytes, bytesToBase64, float32ToBase64 } from '../store/base64.ts';
import type { CommittedWrite, ImportItem } from '../store/gallery-store.ts';
import { bindingOf, seal, subjectTag, unseal } from './crypto.ts';
import type { GalleryMode } from './gallery-keys.ts';
import type { LocalChange } from './outbox.ts';
import { NameSchema, SealedContentSchema, type Change, type PlainPayload, type PulledEnroll, type SealedContent } from './protocol.ts';

/** The outbox changes a committed local write makes (photos only when the gallery shares them). */
export function changesOf(write: CommittedWrite, photos: boolean): LocalChange[] {
  const changeId = () => crypto.randomUUID();
  switch (write.kind) {
    case 'added': {
      const photoOf = new Map(write.photos.map((p) => [`${p.subject}\n${p.imageKey}`, p]));
      return write.templates.map((t) => {
        const photo = photos && t.imageKey !== undefined ? photoOf.get(`${t.subject}\n${t.imageKey}`) : undefined;
        return {
          kind: 'enroll',
          changeId: changeId(),
          gallery: write.gallery,
          subject: t.subject,
          templateId: t.faceId,
          modelId: t.modelId,
          enrolledAt: t.enrollmentTimestamp,
          embedding: t.embedding,
          box: t.box,
          quality: t.quality,
          attributes: t.attributes,
          ...(photo ? { photo: { bytes: photo.bytes, type: photo.type } } : {}),
        };
      });
    }
    case 'removedTemplates':
      return write.faceId === undefined
        ? [{ kind: 'remove_subject', changeId: changeId(), gallery: write.gallery, subject: write.subject }]
        : [{ kind: 'remove_template', changeId: changeId(), gallery: write.gallery, subject: write.subject, templateId: write.faceId }];
    case 'removedGallery':
      return [{ kind: 'remove_gallery', changeId: changeId(), gallery: write.gallery }];
  }
}

/** A queued change as the service gets it: in clear, or sealed with the gallery's key. */
export async function toWire(change: LocalChange, key: GalleryMode): Promise<Change> {
  const subjectOnWire = async (subject: string) => (key ? subjectTag(key, subject) : subject);
  switch (change.kind) {
    case 'enroll': {
      const plain: Omit<PlainPayload, 'mode'> = {
        embedding: float32ToBase64(change.embedding),
        box: change.box,
        quality: change.quality,
        attributes: change.attributes as PlainPayload['attributes'],
        ...(change.photo ? { photo: { mime_type: change.photo.type || 'application/octet-stream', base64: bytesToBase64(new Uint8Array(change.photo.bytes)) } } : {}),
      };
      const payload = key
        ? ({ mode: 'sealed', data: await seal(key, { subject: change.subject, ...plain }, bindingOf(change.gallery, change.templateId, change.modelId)) } as const)
        : ({ mode: 'plain', ...plain } as const);
      return {
        kind: 'enroll',
        change_id: change.changeId,
        gallery: change.gallery,
        subject: await subjectOnWire(change.subject),
        template_id: change.templateId,
        model_id: change.modelId,
        enrolled_at: change.enrolledAt,
        payload,
      };
    }
    case 'remove_template':
      return { kind: 'remove_template', change_id: change.changeId, gallery: change.gallery, subject: await subjectOnWire(change.subject), template_id: change.templateId };
    case 'remove_subject':
      return { kind: 'remove_subject', change_id: change.changeId, gallery: change.gallery, subject: await subjectOnWire(change.subject) };
    case 'remove_gallery':
      return { kind: 'remove_gallery', change_id: change.changeId, gallery: change.gallery };
  }
}

/**
 * A pulled enroll as the store imports it (keeping its id), or why it can't be. `change` is
 * as the reply's schema checked it (client.ts): a plain payload is not checked again, a
 * sealed one's content is checked once opened.
 */
export async function toImportItem(change: PulledEnroll, key: GalleryMode): Promise<ImportItem | { error: string }> {
  let content: SealedContent;
  if (change.payload.mode === 'sealed') {
    if (!key) return { error: 'sealed template in a gallery without a key' };
    const opened = await unseal(key, change.payload.data, bindingOf(change.gallery, change.template_id, change.model_id));
    if (opened === undefined) return { error: `template ${change.template_id} does not decrypt (damaged or tampered with)` };
    const parsed = SealedContentSchema.safeParse(opened);
    if (!parsed.success) return { error: `template ${change.template_id}: ${parsed.error.issues[0]?.message}` };
    content = parsed.data;
  } else {
    const subject = NameSchema.safeParse(change.subject);
    if (!subject.success) return { error: `template ${change.template_id}: ${subject.error.issues[0]?.message}` };
    const { mode: _, ...plain } = change.payload;
    content = { ...plain, subject: subject.data };
  }
  const embedding = float32OfBase64(content.embedding);
  if (!(embedding instanceof Float32Array)) return { error: `template ${change.template_id}: embedding ${embedding.error}` };
  const photoBytes = content.photo ? base64ToBytes(content.photo.base64) : undefined;
  return {
    subject: content.subject,
    faceId: change.template_id,
    enrollmentTimestamp: change.enrolled_at,
    template: { modelId: change.model_id, embedding, box: content.box, attributes: content.attributes, quality: content.quality },
    ...(photoBytes && content.photo ? { image: new Blob([new Uint8Array(photoBytes)], { type: content.photo.mime_type }) } : {}),
  };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** float32 little-endian from canonical base64 (base64.ts), or why it is not one. */
export function float32OfBase64(text: string): Float32Array | { error: string } {
  const bytes = base64ToBytes(text);
  if (!bytes) return { error: 'is not valid base64' };
  if (bytes.length % 4 !== 0) return { error: `is ${bytes.length} bytes, not a whole number of float32 values` };
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer);
  const view = new DataView(bytes.buffer);
  return Float32Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
}
