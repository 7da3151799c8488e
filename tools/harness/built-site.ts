// A production build of the project (vite build with the project's vite.config.ts) served by
// `vite preview` on an ephemeral port: what users get from `npm run demo`. Used by the e2e
// suite (the app) and by benches that measure the built page (--built).
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';

export interface BuiltSite {
  /** e.g. http://127.0.0.1:41234 (no trailing slash) */
  baseUrl: string;
  server: PreviewServer;
  /** stops the server and deletes the build */
  close(): Promise<void>;
}

/**
 * Builds into `outDir` and serves it. `pages`: HTML pages to build (project paths such as
 * '/tools/bench/pages/detect.html'; they keep that path in the build); default index.html.
 */
export async function serveBuiltSite(root: string, outDir: string, pages?: readonly string[]): Promise<BuiltSite> {
  const configFile = resolve(root, 'vite.config.ts');
  const input = pages && Object.fromEntries(pages.map((p) => [p.replace(/[^\w]+/g, '-').replace(/^-/, ''), resolve(root, p.replace(/^\/+/, ''))]));
  await build({ configFile, root, logLevel: 'warn', build: { outDir, emptyOutDir: true, ...(input ? { rollupOptions: { input } } : {}) } });
  const server = await preview({
    configFile,
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') {
    await server.close();
    throw new Error('vite preview has no TCP address');
  }
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    server,
    async close() {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
