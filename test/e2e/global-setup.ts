// The e2e suite's world: the production build of the page (vite build into
// test-results/e2e/site), served by `vite preview` on an ephemeral port, and a fake-webcam
// clip made from a shared face photo. Tests get the URL and paths through inject().
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { serveBuiltSite, type BuiltSite } from '../../tools/harness/built-site.ts';
import { writeFakeCameraClip } from './fake-camera.ts';
import { PROJECT_ROOT, RUN_DIR, SITE_DIR } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    cameraClip: string;
    /** the build's folder (served again under a sub-path by base-path.e2e.test.ts) */
    siteDir: string;
  }
}

let site: BuiltSite | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(RUN_DIR, { recursive: true });
  site = await serveBuiltSite(PROJECT_ROOT, SITE_DIR);
  project.provide('baseUrl', site.baseUrl);
  project.provide('siteDir', SITE_DIR);

  const cameraClip = resolve(RUN_DIR, 'webcam-obama.y4m');
  writeFakeCameraClip(resolve(PROJECT_ROOT, '../shared/data/faces/obama/obama.jpg'), cameraClip);
  project.provide('cameraClip', cameraClip);

  return async () => {
    await site?.close();
    rmSync(RUN_DIR, { recursive: true, force: true });
  };
}
