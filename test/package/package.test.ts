// The package as apps get it: `npm pack` → a fresh vite app, a fresh webpack 5 app and a page
// without a bundler, each installing the tarball from the file (offline), built with its own
// bundler, served with COOP/COEP by a plain static server and driven in Debian's Chromium
// through the README's "use it in your app" code (test/package/app/main.js): detect, then on a
// click enroll and recognize. The server records every request, so the test also checks that
// a page that has only detected downloaded the detect models and not the recogniser.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES, modelsFor } from '../../src/models/capabilities.ts';
import { ModelManifestSchema } from '../../src/models/manifest.ts';
import { CALLABLE_MODELS } from '../../src/package/callable-models.ts';
import { chromiumArgs, chromiumPath } from '../../tools/browser-env.ts';
import { serveStatic, type StaticServer } from '../../tools/harness/static-server.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const APP = resolve(import.meta.dirname, 'app');
const FACE = resolve(ROOT, '../shared/data/faces/obama/obama.jpg');
const PACKAGE = 'kairos-in-browser';
/** the package's own dependencies (types only: its JS is self-contained), copied so npm needs no registry */
const PACKAGE_DEPS = ['comlink', 'idb', 'zod'];

type AppKind = 'vite' | 'webpack' | 'plain';

interface BuiltApp {
  kind: AppKind;
  /** the folder a web server serves */
  site: string;
  /** how long npm install and the build took, ms */
  installMs: number;
  buildMs: number;
}

let work: string;
let tarball: string;
let browser: Browser;
const apps = new Map<AppKind, BuiltApp>();

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** every file under dir (relative path → bytes) */
function filesUnder(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const full = join(entry.parentPath, entry.name);
      out.set(relative(dir, full), statSync(full).size);
    }
  }
  return out;
}

/** A fresh app folder with the tarball installed from the file, offline. */
async function newApp(kind: AppKind, bundler: string[]): Promise<{ dir: string; installMs: number }> {
  const dir = join(work, `${kind}-app`);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `${kind}-app`, private: true, type: 'module' }, null, 2));
  for (const dep of PACKAGE_DEPS) cpSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), { recursive: true });
  const started = performance.now();
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: dir });
  const installMs = performance.now() - started;
  // the bundler itself comes from this repository's devDependencies
  for (const name of bundler) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  copyFileSync(join(APP, 'main.js'), join(dir, 'main.js'));
  return { dir, installMs };
}

async function buildViteApp(): Promise<BuiltApp> {
  const { dir, installMs } = await newApp('vite', ['vite']);
  for (const f of ['index.html', 'vite.config.js']) copyFileSync(join(APP, f), join(dir, f));
  mkdirSync(join(dir, 'public'));
  copyFileSync(FACE, join(dir, 'public/face.jpg'));
  const started = performance.now();
  await run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { cwd: dir });
  return { kind: 'vite', site: join(dir, 'dist'), installMs, buildMs: performance.now() - started };
}

async function buildWebpackApp(): Promise<BuiltApp> {
  const { dir, installMs } = await newApp('webpack', ['webpack', 'webpack-cli']);
  copyFileSync(join(APP, 'webpack.config.js'), join(dir, 'webpack.config.js'));
  const started = performance.now();
  await run(process.execPath, ['node_modules/webpack-cli/bin/cli.js', '--stats', 'errors-warnings'], { cwd: dir });
  const buildMs = performance.now() - started;
  // webpack's own guide writes dist/index.html by hand; the page loads the bundle dist/main.js
  copyFileSync(join(APP, 'index.html'), join(dir, 'dist/index.html'));
  copyFileSync(FACE, join(dir, 'dist/face.jpg'));
  return { kind: 'webpack', site: join(dir, 'dist'), installMs, buildMs };
}

/** No bundler: the page maps the package name to its entry with an import map (docs/install.md). */
async function plainApp(): Promise<BuiltApp> {
  const { dir, installMs } = await newApp('plain', []);
  const html = readFileSync(join(APP, 'index.html'), 'utf8');
  const importMap = `<script type="importmap">{ "imports": { "${PACKAGE}": "./node_modules/${PACKAGE}/dist/lib/index.js" } }</script>`;
  const withMap = html.replace('<script type="module"', `${importMap}\n    <script type="module"`);
  expect(withMap).not.toBe(html);
  writeFileSync(join(dir, 'index.html'), withMap);
  copyFileSync(FACE, join(dir, 'face.jpg'));
  return { kind: 'plain', site: dir, installMs, buildMs: 0 };
}

/** model id of each file a site serves, by content (bundlers rename files but copy models unchanged) */
function modelsByHash(): Map<string, string> {
  const manifest = ModelManifestSchema.parse(JSON.parse(readFileSync(resolve(ROOT, 'public/models/manifest.json'), 'utf8')));
  return new Map(manifest.models.map((m) => [m.sha256, m.id]));
}

function modelsRequested(site: string, server: StaticServer, from = 0): string[] {
  const byHash = modelsByHash();
  const ids = new Set<string>();
  for (const path of server.requests.slice(from)) {
    if (!path.endsWith('.onnx')) continue;
    const id = byHash.get(sha256(join(site, path)));
    if (id) ids.add(id);
  }
  return [...ids].sort();
}

const sorted = (ids: readonly string[]) => [...new Set(ids)].sort();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'kairos-package-'));
  // `npm pack` runs prepack (npm run build:lib): the tarball is what would be published
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, maxBuffer: 64 << 20 });
  // prepack's build log comes first on stdout and may hold '[' itself (warnings): the JSON starts on a line of its own
  const jsonStart = stdout.search(/^\[\s*$/m);
  const packed = JSON.parse(stdout.slice(jsonStart)) as { filename: string }[];
  tarball = join(work, packed[0]!.filename);
  // builds one after the other would take longer than the 2 cores doing both
  const [vite, webpack, plain] = await Promise.all([buildViteApp(), buildWebpackApp(), plainApp()]);
  for (const app of [vite, webpack, plain]) apps.set(app.kind, app);
  console.log([...apps.values()].map((a) => `${a.kind}: npm install ${Math.round(a.installMs)} ms, build ${Math.round(a.buildMs)} ms`).join('; '));
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 60_000 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('holds the entry, its types, the worker, ORT files, the WebGPU opt-in and the models a call can load with their manifest; no private flag', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = new Set(stdout.split('\n').filter(Boolean).map((p) => p.replace(/^package\//, '')));
    const manifest = ModelManifestSchema.parse(JSON.parse(readFileSync(resolve(ROOT, 'public/models/manifest.json'), 'utf8')));
    const expected = [
      'package.json',
      'dist/lib/index.js',
      'dist/lib/package/index.d.ts',
      'dist/lib/assets/vision.worker.js',
      'dist/lib/ort/ort-wasm-simd-threaded.mjs',
      'dist/lib/ort/ort-wasm-simd-threaded.wasm',
      'dist/lib/ort/ort-wasm-simd-threaded.asyncify.wasm',
      'dist/lib/webgpu.js',
      'dist/lib/webgpu.d.ts',
      'dist/lib/models/manifest.json',
      ...manifest.models.filter((m) => CALLABLE_MODELS.includes(m.id)).map((m) => `dist/lib/models/${m.file}`),
    ];
    for (const f of expected) expect(files, f).toContain(f);
    // models kept for evaluation only (no call loads them) stay out
    const uncallable = manifest.models.filter((m) => !CALLABLE_MODELS.includes(m.id));
    expect(uncallable.length).toBeGreaterThan(0);
    for (const m of uncallable) expect(files, m.file).not.toContain(`dist/lib/models/${m.file}`);
    expect([...files].filter((f) => !f.startsWith('dist/lib/') && f !== 'package.json' && !/^(README\.md|LICENSE)/.test(f))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(apps.get('plain')!.site, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['.', './models/*']));
    expect(pkg.exports['.'].types).toBe('./dist/lib/package/index.d.ts');
  });

  it('has types that check under strict TypeScript without skipLibCheck (lib.dom itself skipped)', async () => {
    const dir = apps.get('plain')!.site;
    writeFileSync(
      join(dir, 'check.ts'),
      [
        `import { createEngine, engineFiles, type Engine } from '${PACKAGE}';`,
        `const engine: Engine = await createEngine({ modelBaseUrl: '/models/' });`,
        `const answer = await engine.detect({ image: new Blob() });`,
        `if (!('Errors' in answer)) console.log(answer.images[0]?.faces.length);`,
        `console.log(engineFiles({ capabilities: ['detect'] })[0]?.sha256);`,
        `// @ts-expect-error not a capability`,
        `engineFiles({ capabilities: ['fly'] });`,
        `export {};`,
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--skipDefaultLibCheck', '--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2022', '--lib', 'es2023,dom', 'check.ts'];
    await expect(run(process.execPath, [tsc, ...args], { cwd: dir })).resolves.toBeTruthy();
  });

  it("is what the README's 'use it in your app' section shows", () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(readFileSync(join(APP, 'main.js'), 'utf8'));
  });
});

describe.each(['vite', 'webpack', 'plain'] as const)('a %s app', (kind) => {
  it('runs detect → enroll → recognize with createEngine() and no options, downloading the recogniser only when needed', async () => {
    const app = apps.get(kind)!;
    const server = await serveStatic(app.site, { isolated: true });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.baseUrl + '/');
      const detect = JSON.parse(await page.locator('#detect:not(:empty)').textContent({ timeout: 120_000 }) ?? '');
      expect(detect.Errors).toBeUndefined();
      expect(detect.images[0].faces).toHaveLength(1);
      expect(detect.images[0].faces[0].attributes.gender.type).toBe('M');
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      // only detected so far: the detect models and nothing else
      expect(modelsRequested(app.site, server)).toEqual(sorted(CAPABILITIES.detect.models));
      expect(modelsRequested(app.site, server)).not.toContain('faceapi-recognition');
      const seen = server.requests.length;

      await page.getByRole('button', { name: 'Enroll and recognise' }).click();
      const recognize = JSON.parse(await page.locator('#recognize:not(:empty)').textContent({ timeout: 120_000 }) ?? '');
      const enroll = JSON.parse((await page.locator('#enroll').textContent()) ?? '');
      expect(enroll.face_id).toBeTruthy();
      expect(recognize.images[0].transaction.status).toBe('success');
      expect(recognize.images[0].candidates[0].subject_id).toBe('ada');
      expect(modelsRequested(app.site, server, seen)).toEqual(
        sorted(modelsFor(['detect', 'recognize']).filter((m) => !CAPABILITIES.detect.models.includes(m as never))),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await server.close();
    }
  });
});

describe.each(['vite', 'webpack'] as const)("a %s app's build", (kind) => {
  it("holds only files a call can load: the callable models and ORT's WASM build, not its WebGPU build", () => {
    const site = apps.get(kind)!.site;
    const lib = join(apps.get('plain')!.site, 'node_modules', PACKAGE, 'dist/lib');
    const files = filesUnder(site);
    const total = [...files.values()].reduce((s, b) => s + b, 0);
    const big = [...files].filter(([, b]) => b > 1e6).map(([p, b]) => `${p} ${(b / 1e6).toFixed(1)} MB`);
    console.log(`${kind} app's build: ${(total / 1e6).toFixed(1)} MB in ${files.size} files (${big.join(', ')})`);
    const of = (ext: string) => [...files.keys()].filter((p) => p.endsWith(ext));
    // models by content (bundlers rename them): exactly the ones some call loads
    const byHash = modelsByHash();
    expect(sorted(of('.onnx').map((p) => byHash.get(sha256(join(site, p))) ?? p))).toEqual(sorted(CALLABLE_MODELS));
    // one WASM binary, the WASM backend's; no asyncify (WebGPU) build, which an app opts into
    expect(of('.wasm').map((p) => sha256(join(site, p)))).toEqual([sha256(join(lib, 'ort/ort-wasm-simd-threaded.wasm'))]);
    expect(of('.mjs')).toHaveLength(1);
    // and nothing else of size: the app's own files are small
    const callableBytes = [...filesUnder(join(lib, 'models')).entries()]
      .filter(([p]) => p.endsWith('.onnx'))
      .reduce((s, [, b]) => s + b, 0);
    const runtimeBytes = statSync(join(lib, 'ort/ort-wasm-simd-threaded.wasm')).size + statSync(join(lib, 'assets/vision.worker.js')).size;
    expect(total).toBeLessThan(callableBytes + runtimeBytes + 1.5e6);
  });
});

describe('a page without a bundler', () => {
  it("lists the package's files with hashes that match what the app serves (engineFiles)", async () => {
    const app = apps.get('plain')!;
    const server = await serveStatic(app.site, { isolated: true });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.baseUrl + '/index.html#files');
      const checked = await page.evaluate(async (name) => {
        const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
        // the package's own entry, as the page's import map resolves it (not a module of this test)
        const load = new Function('name', 'return import(name)') as (n: string) => Promise<{ engineFiles: (o: object) => unknown }>;
        const { engineFiles } = await load(name);
        // ORT's WebGPU build, the opt-in module (the import map names the package's entry only)
        const { webgpuFiles } = (await load(`./node_modules/${name}/dist/lib/webgpu.js`)) as unknown as { webgpuFiles: unknown[] };
        const files = engineFiles({ capabilities: ['detect'], webgpu: webgpuFiles }) as { url: string; bytes: number; sha256: string }[];
        return Promise.all(
          files.map(async (f) => {
            const body = await (await fetch(f.url)).arrayBuffer();
            return { url: new URL(f.url).pathname, ok: body.byteLength === f.bytes && hex(await crypto.subtle.digest('SHA-256', body)) === f.sha256 };
          }),
        );
      }, PACKAGE);
      const paths = checked.map((c) => c.url.replace(`/node_modules/${PACKAGE}/dist/lib/`, ''));
      expect(paths).toEqual(
        expect.arrayContaining([
          'assets/vision.worker.js',
          'ort/ort-wasm-simd-threaded.wasm',
          'ort/ort-wasm-simd-threaded.asyncify.wasm',
          'models/manifest.json',
          'models/facemesh.onnx',
        ]),
      );
      expect(paths).not.toContain('models/faceapi-recognition.onnx');
      expect(checked.filter((c) => !c.ok)).toEqual([]);
    } finally {
      await context.close();
      await server.close();
    }
  });

  it('still works without COOP/COEP, on one WASM thread', async () => {
    const app = apps.get('plain')!;
    const server = await serveStatic(app.site, { isolated: false });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.baseUrl + '/');
      const detect = JSON.parse(await page.locator('#detect:not(:empty)').textContent({ timeout: 120_000 }) ?? '');
      expect(detect.images[0].faces).toHaveLength(1);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    } finally {
      await context.close();
      await server.close();
    }
  });
});
