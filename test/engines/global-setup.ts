// The engines project's world: one production build holding the demo app (index.html) and the
// flows page (test/engines/pages/flows.html), served by `vite preview` with COOP/COEP on an
// ephemeral port, shared by the three browsers' test files. Tests get the URL through inject().
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { serveBuiltSite, type BuiltSite } from '../../tools/harness/built-site.ts';
import { FLOWS_PAGE, PROJECT_ROOT, RUN_DIR } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    enginesBaseUrl: string;
  }
}

let site: BuiltSite | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(RUN_DIR, { recursive: true });
  site = await serveBuiltSite(PROJECT_ROOT, resolve(RUN_DIR, 'site'), ['/index.html', FLOWS_PAGE]);
  project.provide('enginesBaseUrl', site.baseUrl);
  return async () => {
    await site?.close();
    rmSync(RUN_DIR, { recursive: true, force: true });
  };
}
