// Retention enforced by the service itself, by PostgreSQL's clock: a gallery with
// retention_days loses the templates enrolled before that (biometric columns emptied, a
// remove_template in the log that every device pulls); younger ones and other galleries stay.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expireTemplates } from '../../server/src/retention.ts';
import { PullResponseSchema } from '../../src/sync/protocol.ts';
import { freshDatabase, headers, startService, type Service } from './helpers/service.ts';
import { enroll } from './helpers/templates.ts';

const APP = { id: 'retention-app', key: 'retention-app-key' };
const DAY = 86_400_000;
let service: Service;

beforeAll(async () => {
  service = await startService(await freshDatabase(), { apps: { [APP.id]: APP.key } });
});
afterAll(() => service?.close());

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${service.url}${path}`, { method, headers: headers(APP.id, APP.key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

it('expires templates older than the gallery’s retention_days on the service, and devices pull the removal', async () => {
  const old = enroll('visitors', 'alice', { enrolled_at: String(Date.now() - 31 * DAY) });
  const young = enroll('visitors', 'bob', { enrolled_at: String(Date.now() - 29 * DAY) });
  const elsewhere = enroll('staff', 'carol', { enrolled_at: String(Date.now() - 400 * DAY) });
  expect((await call('POST', '/v1/push', { changes: [old, young, elsewhere] })).status).toBe(200);
  expect((await call('PUT', '/v1/galleries/visitors/retention', { days: 0 })).status).toBe(400);
  expect(await (await call('PUT', '/v1/galleries/visitors/retention', { days: 30 })).json()).toEqual({ gallery: 'visitors', retention_days: 30 });

  expect(await expireTemplates(service.pool)).toBe(1);
  expect(await expireTemplates(service.pool)).toBe(0); // nothing twice
  const rows = await service.pool.query('select template_id, embedding, attributes, removed_seq from templates where app_id = $1 order by template_id', [APP.id]);
  const byId = new Map(rows.rows.map((r: { template_id: string }) => [r.template_id, r]));
  expect(byId.get(old.template_id)).toMatchObject({ embedding: null, attributes: null, removed_seq: expect.any(String) });
  expect(byId.get(young.template_id)).toMatchObject({ removed_seq: null });
  expect(byId.get(elsewhere.template_id)).toMatchObject({ removed_seq: null });

  const pulled = PullResponseSchema.parse(await (await call('GET', '/v1/pull?after=0')).json());
  expect(pulled.changes.filter((c) => c.kind === 'enroll').map((c) => c.kind === 'enroll' && c.template_id).sort()).toEqual([young.template_id, elsewhere.template_id].sort());
  expect(pulled.changes.filter((c) => c.kind === 'remove')).toEqual([expect.objectContaining({ kind: 'remove', scope: 'template', gallery: 'visitors', template_ids: [old.template_id] })]);
});
