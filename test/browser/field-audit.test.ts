// No made-up values, on the real engine: every field of real /detect, /enroll, /verify,
// /recognize, /v2/media and /v2/analytics bodies is in the audit (src/api/field-audit.ts),
// every unmeasured field carries the documented unknown value, and across different real faces
// every measured /detect field takes more than one value (a constant is not a measurement).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import pennyUrl from '../../../shared/data/faces/penny/penny1.png?url';
import fearfulUrl from '../../../shared/data/expressions/fearful/fearful.jpg?url';
import happyUrl from '../../../shared/data/expressions/happy/happy.jpg?url';
import angryUrl from '../../../shared/data/expressions/angry/angry.jpg?url'; // lips together (mouth gap 0.008)
import { FIELD_AUDIT, leaves, UNKNOWN } from '../../src/api/field-audit.ts';
import { createEngine, type Engine } from '../../src/index.ts';

let engine: Engine;
const blobOf = async (url: string) => new File([await (await fetch(url)).blob()], url.split('/').pop()!.split('?')[0]!);
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && ('Errors' in r || 'code' in r)) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

/** Checks one real body against the audit; returns its leaves for the variation check. */
function audited(endpoint: string, response: unknown): [string, unknown][] {
  const audit = FIELD_AUDIT[endpoint]!;
  const all = leaves(response);
  for (const [path, value] of all) {
    const field = audit[path];
    expect(field, `${endpoint}: ${path} = ${JSON.stringify(value)} is not in the audit`).toBeDefined();
    if (field!.source === 'unmeasured') {
      expect(value, `${endpoint}: ${path} is not measured`).toBe(typeof value === 'number' ? UNKNOWN.number : UNKNOWN.string);
    }
  }
  for (const [path, field] of Object.entries(audit)) {
    // unmeasured fields are still sent (their type kept for existing clients)
    if (field.source === 'unmeasured') expect(all.some(([p]) => p === path), `${endpoint}: ${path} is sent`).toBe(true);
  }
  return all;
}

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName: `field-audit-${Date.now()}` });
});
afterAll(() => engine?.close());

describe('real responses hold to the field audit', () => {
  it('/detect on different people: every measured field varies, hispanic is -1', async () => {
    const seen = new Map<string, Set<string>>();
    for (const url of [obamaUrl, pennyUrl, fearfulUrl, happyUrl, angryUrl]) {
      const r = body(await engine.detect({ image: await blobOf(url), selector: 'FRONTAL,liveness' }));
      for (const [path, value] of audited('detect', r)) {
        if (!seen.has(path)) seen.set(path, new Set());
        seen.get(path)!.add(JSON.stringify(value));
      }
    }
    const constant = Object.entries(FIELD_AUDIT.detect!)
      .filter(([path, f]) => f.source === 'measured' && (seen.get(path)?.size ?? 0) < 2)
      .map(([path]) => `${path} = ${[...(seen.get(path) ?? [])].join('|')}`);
    expect(constant, 'measured fields with one value over five different people').toEqual([]);
  });

  it('/enroll, /verify, /recognize', async () => {
    audited('enroll', body(await engine.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: 'audit' })));
    audited('verify', body(await engine.verify({ image: await blobOf(obama2Url), subject_id: 'obama', gallery_name: 'audit', selector: 'liveness' })));
    audited('recognize', body(await engine.recognize({ image: await blobOf(obama2Url), gallery_name: 'audit', selector: 'liveness' })));
    audited('recognize', body(await engine.recognize({ image: await blobOf(pennyUrl), gallery_name: 'audit' }))); // no match
  });

  it('/v2/media (with landmarks) and /v2/analytics: glasses are "Unknown" / -1', async () => {
    const m = body(await engine.mediaPost({ source: await blobOf(happyUrl), landmarks: 1, timeout: 60 })) as { id: string; frames: { people: { appearance: unknown }[] }[] };
    audited('media', m);
    expect(m.frames[0]!.people[0]!.appearance).toEqual({ glasses: 'Unknown' });
    const a = body(await engine.analyticsGet({ id: m.id })) as { impressions: { appearance: unknown }[] };
    audited('analytics', a);
    expect(a.impressions[0]!.appearance).toEqual({ glasses: -1 });
  });
});
