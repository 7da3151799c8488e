// The e2e suite's world: the production build of the page (vite build into
// test-results/e2e/site), served by `vite preview` on an ephemeral port, and a fake-webcam
// clip made from a shared face photo. Tests get the URL and paths through inject().
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, preview, type PreviewServer } from 'vite';
import { writeFakeCameraClip } from './fake-camera.ts';
import { PROJECT_ROOT, RUN_DIR, SITE_DIR } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    cameraClip: string;
  }
}

let server: PreviewServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(RUN_DIR, { recursive: true });
  const configFile = resolve(PROJECT_ROOT, 'vite.config.ts');
  await build({ configFile, root: PROJECT_ROOT, logLevel: 'warn', build: { outDir: SITE_DIR, emptyOutDir: true } });
  server = await preview({
    configFile,
    root: PROJECT_ROOT,
    logLevel: 'warn',
    build: { outDir: SITE_DIR },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('vite preview has no TCP address');
  project.provide('baseUrl', `http://127.0.0.1:${address.port}`);

  const cameraClip = resolve(RUN_DIR, 'webcam-obama.y4m');
  writeFakeCameraClip(resolve(PROJECT_ROOT, '../shared/data/faces/obama/obama.jpg'), cameraClip);
  project.provide('cameraClip', cameraClip);

  return async () => {
    await server?.close();
    rmSync(RUN_DIR, { recursive: true, force: true });
  };
}
