// The engine side's pure parts in Node (WebCrypto is global in Node 20): a template survives
// the trip store → outbox → wire → store exactly, in clear and sealed; a wrong passphrase is
// refused before anything is decrypted; a tampered or moved ciphertext does not open.
import { describe, expect, it } from 'vitest';
import { changesOf, toImportItem, toWire } from '../../src/sync/codec.ts';
import { base64ToBytes } from '../../src/store/base64.ts';
import { newEncryption, openEncryption, subjectTag } from '../../src/sync/crypto.ts';
import { SyncError } from '../../src/sync/errors.ts';
import type { PulledEnroll } from '../../src/sync/protocol.ts';
import type { StoredTemplate } from '../../src/store/schema.ts';

const embedding = new Float32Array(Array.from({ length: 128 }, (_, i) => Math.sin(i) * 0.3));
const template: StoredTemplate = {
  appId: 'local',
  gallery: 'staff',
  subject: 'alice',
  faceId: '0190c1de-0000-7000-8000-000000000001',
  enrollmentTimestamp: '1720000000001',
  modelId: 'faceapi-recognition@1.7.15+flip',
  embedding,
  box: { topLeftX: 1, topLeftY: 2, width: 30, height: 40 },
  attributes: { age: 33 },
  quality: 0.8,
  imageKey: 'img-1',
};
const photoBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).buffer;
const added = { kind: 'added' as const, appId: 'local', gallery: 'staff', templates: [template], photos: [{ subject: 'alice', imageKey: 'img-1', bytes: photoBytes, type: 'image/jpeg' }] };

const asPulled = (wire: Awaited<ReturnType<typeof toWire>>, seq = 1): PulledEnroll => {
  if (wire.kind !== 'enroll') throw new Error('not an enroll');
  const { change_id: _c, ...rest } = wire;
  return { seq, ...rest };
};

describe('sync codec', () => {
  it('a local enroll becomes one enroll change; the photo only when photos are shared', () => {
    expect(changesOf(added, false)[0]).not.toHaveProperty('photo');
    expect(changesOf(added, true)[0]).toMatchObject({ kind: 'enroll', templateId: template.faceId, photo: { type: 'image/jpeg' } });
    expect(changesOf({ kind: 'removedTemplates', appId: 'local', gallery: 'staff', subject: 'alice', faceIds: ['x'] }, false)[0]).toMatchObject({ kind: 'remove_subject', subject: 'alice' });
    expect(changesOf({ kind: 'removedTemplates', appId: 'local', gallery: 'staff', subject: 'alice', faceId: 'x', faceIds: ['x'] }, false)[0]).toMatchObject({ kind: 'remove_template', templateId: 'x' });
  });

  it('round-trips a template exactly, in clear', async () => {
    const wire = await toWire(changesOf(added, true)[0]!, undefined);
    expect(wire).toMatchObject({ subject: 'alice', payload: { mode: 'plain' } });
    const item = await toImportItem(asPulled(wire), undefined);
    if ('error' in item) throw new Error(item.error);
    expect(item.faceId).toBe(template.faceId);
    expect(item.enrollmentTimestamp).toBe(template.enrollmentTimestamp);
    expect(Array.from(item.template.embedding)).toEqual(Array.from(embedding));
    expect(new Uint8Array(await item.image!.arrayBuffer())).toEqual(new Uint8Array(photoBytes));
  });

  it('sealed: nothing readable on the wire, exact after opening with the same passphrase, refused with another', async () => {
    const { encryption, key } = await newEncryption('team passphrase');
    const wire = await toWire(changesOf(added, true)[0]!, key);
    const text = JSON.stringify(wire);
    expect(text).not.toContain('alice');
    expect(text).not.toContain('embedding');
    expect(wire.kind === 'enroll' && wire.subject).toBe(await subjectTag(key, 'alice'));

    const again = await openEncryption('team passphrase', encryption, 'staff');
    const item = await toImportItem(asPulled(wire), again);
    if ('error' in item) throw new Error(item.error);
    expect(item.subject).toBe('alice');
    expect(Array.from(item.template.embedding)).toEqual(Array.from(embedding));

    await expect(openEncryption('another passphrase', encryption, 'staff')).rejects.toSatisfy((e) => e instanceof SyncError && e.code === 'WRONG_PASSPHRASE');

    // tampered ciphertext, or a ciphertext moved to another template id: does not open
    const pulled = asPulled(wire);
    if (pulled.payload.mode !== 'sealed') throw new Error('not sealed');
    const bytes = Buffer.from(pulled.payload.data, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(await toImportItem({ ...pulled, payload: { mode: 'sealed', data: bytes.toString('base64') } }, again)).toHaveProperty('error');
    expect(await toImportItem({ ...pulled, template_id: 'another-id' }, again)).toHaveProperty('error');
  });
});

describe('base64 of pulled data', () => {
  it('accepts exactly the canonical encodings (what re-encodes to the same text), with the same bytes', () => {
    const texts = [
      ...Array.from({ length: 12 }, (_, n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 97 + n) & 0xff)).toString('base64')),
      'AB==', // padding bits set (canonical: AA==)
      'AAB=', // (canonical: AAA=)
      'A===',
      'AA AA==',
      'AA\nA',
      'AAA',
      'AA=A',
      '=AAA',
      'AA-_',
    ];
    // reference: Node's decoder, kept only when the bytes re-encode to the very same text
    const canonical = (text: string) => {
      const bytes = Buffer.from(text, 'base64');
      return bytes.toString('base64') === text ? new Uint8Array(bytes) : undefined;
    };
    for (const text of texts) expect([text, base64ToBytes(text)]).toEqual([text, canonical(text)]);
    expect(base64ToBytes('AAEC')).toEqual(new Uint8Array([0, 1, 2]));
    expect(base64ToBytes('AB==')).toBeUndefined();
  });
});
