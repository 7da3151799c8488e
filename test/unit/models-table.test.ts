// The README's capabilities → models → bytes table matches the models on disk.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { README, readmeWithTable } from '../../tools/models-table.ts';

it('the README models table is current (else: npm run docs:models)', () => {
  const readme = readFileSync(README, 'utf8');
  expect(readme).toBe(readmeWithTable(readme));
});
