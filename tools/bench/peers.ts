// `npm run bench:peers`: @vladmandic/human, @vladmandic/face-api and this engine side by side, in
// both configurations every run: pages with COOP/COEP (cross-origin isolated, 2 WASM threads for
// every library) and pages without them (1 thread for everyone, as on most hosts). Every library
// starts from the same encoded file and its decode is timed (human and face-api:
// createImageBitmap(file) then their detect; the engine: engine.detect({ image: file })); times
// without the decode are reported next to them. Photos: the 640×480 single face, the 18 group
// photos, every image of ../shared/data faces/ and groups/ by size band (≤ 1, 1–3, 3–8, > 8 MP),
// and a speed-only set made in the page (shared photos upscaled to 8 and 12 MP, JPEG q 0.9; faces
// counted, not judged). Chromium also measures cold starts in both configurations. Prints the
// ratio tables and writes them to docs/benchmarks.md between markers (regenerated).
//   --quick                 a smoke run: 1 photo per band + one upscaled source, 1 pass, 1 warm-up, 1 cold
//                           start per case, no second visit; writes nothing
//   --browser NAME (chromium) chromium, firefox or webkit (tools/harness/browsers.ts); firefox and webkit:
//                           warm passes only (cold starts need Playwright's fresh contexts), a section each
//   --config both|isolated|plain (both)  one configuration only (a partial run: docs left alone)
//   --passes N (3)          measured passes over every photo (medians per photo)
//   --warmup N (2)          untimed rounds over the warm-up photos first (and ≥ 3 s)
//   --single-repeats N (5)  the single face goes N times into each pass, spread through it
//   --cold-runs N (5)       Chromium: cold starts per library, first photo and configuration (median)
//   --no-revisit            Chromium: no second visit after the small-photo cold starts
//   --upscale N (3)         upscaled sources: the N largest group photos and N largest faces (one per person)
//   --engine lib|src (lib)  this engine from its npm package build (one ESM file + its worker, as apps load it)
//                           or its source modules one by one through vite's dev server
//   --tfjs-native-threads   let tfjs-backend-wasm keep its own cap of hardwareConcurrency / 2 threads
//   --wait-idle S (0)       before the warm passes and each cold start, wait up to S s for other processes to settle
//   --settle MS (0)         idle before every measured call, as a user's photo arrives after a pause (no doc write)
//   --only TEXT             only photos whose path or upscaled id contains TEXT (no doc write)
//   --console (page logs)  --json FILE (raw results, saved as they come)  --no-write (stdout only)
//   --from FILE             no measuring: render what a --json run saved
//   --help
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BROWSER_NAMES, type BrowserName } from '../harness/browsers.ts';
import { projectRoot } from '../harness/browser-session.ts';
import { measureCold } from './peers-cold.ts';
import { buildEngineLib, measureWarm, removeEngineLib, serveBench } from './peers-browsers.ts';
import { CONFIGS, type BenchImage, type ConfigId } from './peers-data.ts';
import { ManifestSchema, benchImages, quickImages, upscaleSources, upscaledImages } from './peers-manifest.ts';
import { docMarkers, renderRun, type ConfigRun, type PeersRun, type RunOptions } from './peers-render.ts';
import { cpuModel, pct, writeBetweenMarkers } from './report.ts';

const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const DATA = resolve(projectRoot, '../shared/data');

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(resolve(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The run's photos: the data photos (all, --only's, or --quick's few) and the upscaled set made from them. */
function runImages(o: RunOptions): { images: BenchImage[]; largest: BenchImage } {
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(DATA, 'manifest.json'), 'utf8')));
  const all = benchImages(manifest);
  const images = o.quick
    ? [...quickImages(all, 1), ...upscaledImages(upscaleSources(all, 1).slice(0, 1))]
    : [...all, ...upscaledImages(upscaleSources(all, o.upscale))].filter((i) => !o.only || i.path.includes(o.only));
  const data = images.filter((i) => i.set !== 'upscaled');
  if (!data.length) throw new Error(`no data photos${o.only ? ` contain "${o.only}"` : ''}`);
  // the cold starts' large first photo: a data photo (an upscaled one would be made during the cold start)
  const largest = data.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  return { images, largest };
}

async function measure(o: RunOptions, configIds: readonly ConfigId[], json: string | undefined): Promise<PeersRun> {
  const started = Date.now();
  const { images, largest } = runImages(o);
  const run: PeersRun = {
    kind: 'peers-run',
    measuredAt: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} cores, ${cpuModel()}`,
    browser: o.browser,
    versions: Object.fromEntries(['@vladmandic/human', '@vladmandic/face-api', '@tensorflow/tfjs-backend-wasm', 'onnxruntime-web'].map((n) => [n, packageVersion(n)])),
    options: o,
    images,
    largePhoto: largest.path,
    configs: [],
    partial: true,
    durationS: 0,
  };
  const save = () => {
    run.durationS = (Date.now() - started) / 1000;
    if (json) writeFileSync(json, JSON.stringify(run, null, 1));
  };
  const libDir = o.engineBuild === 'lib' ? `peers-${process.pid}` : undefined;
  if (libDir) buildEngineLib(libDir);
  try {
    for (const id of configIds) {
      const config = CONFIGS.find((c) => c.id === id)!;
      const server = await serveBench(config.isolation, libDir);
      try {
        const warm = await measureWarm({ ...o, config, engineLibDir: libDir, onProgress: (calls) => ((run.inProgress = { config: id, calls }), save()) }, images, server);
        delete run.inProgress;
        const entry: ConfigRun = { config: id, warm, colds: [] };
        run.configs.push(entry);
        save();
        if (o.browser === 'chromium' && o.coldRuns > 0) {
          const cold = await measureCold({ ...o, config, engineLibDir: libDir, largePhoto: largest.path, onRun: (colds) => ((entry.colds = colds), save()) }, server);
          entry.colds = cold.colds;
          entry.othersCold = cold.othersCold;
          save();
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    if (libDir) removeEngineLib(libDir);
  }
  delete run.partial;
  save();
  return run;
}

const HELP = readFileSync(new URL(import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('//'))
  .map((l) => l.replace(/^\/\/ ?/, ''))
  .join('\n');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      browser: { type: 'string', default: 'chromium' },
      config: { type: 'string', default: 'both' },
      passes: { type: 'string' },
      warmup: { type: 'string' },
      'single-repeats': { type: 'string' },
      'cold-runs': { type: 'string' },
      'no-revisit': { type: 'boolean', default: false },
      upscale: { type: 'string', default: '3' },
      engine: { type: 'string', default: 'lib' },
      'tfjs-native-threads': { type: 'boolean', default: false },
      'wait-idle': { type: 'string', default: '0' },
      settle: { type: 'string', default: '0' },
      only: { type: 'string' },
      console: { type: 'boolean', default: false },
      json: { type: 'string' },
      from: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const quick = values.quick;
  const browser = values.browser as BrowserName;
  if (!BROWSER_NAMES.includes(browser)) throw new Error(`--browser must be one of ${BROWSER_NAMES.join(', ')}`);
  const options: RunOptions = {
    browser,
    quick,
    passes: Number(values.passes ?? (quick ? 1 : 3)),
    warmup: Number(values.warmup ?? (quick ? 1 : 2)),
    singleRepeats: Number(values['single-repeats'] ?? (quick ? 1 : 5)),
    coldRuns: browser === 'chromium' ? Number(values['cold-runs'] ?? (quick ? 1 : 5)) : 0,
    revisit: !values['no-revisit'] && !quick,
    upscale: Number(values.upscale),
    engineBuild: values.engine as RunOptions['engineBuild'],
    tfjsNativeThreads: values['tfjs-native-threads'],
    waitIdle: Number(values['wait-idle']),
    settleMs: Number(values.settle),
    console: values.console,
    ...(values.only ? { only: values.only } : {}),
  };
  const checks = [['passes', options.passes, 1], ['warmup', options.warmup, 0], ['single-repeats', options.singleRepeats, 1], ['cold-runs', options.coldRuns, 0], ['upscale', options.upscale, 0], ['wait-idle', options.waitIdle, 0], ['settle', options.settleMs ?? 0, 0]] as const;
  for (const [name, value, min] of checks) {
    if (!(Number.isInteger(value) && value >= min)) throw new Error(`--${name} must be an integer ≥ ${min}`);
  }
  if (!['lib', 'src'].includes(options.engineBuild)) throw new Error('--engine must be lib or src');
  const configIds: ConfigId[] = values.config === 'both' ? CONFIGS.map((c) => c.id) : [values.config as ConfigId];
  if (!configIds.every((id) => CONFIGS.some((c) => c.id === id))) throw new Error(`--config must be both, ${CONFIGS.map((c) => c.id).join(' or ')}`);

  const run = values.from ? (JSON.parse(readFileSync(values.from, 'utf8')) as PeersRun) : await measure(options, configIds, values.json);
  if (run.kind !== 'peers-run') throw new Error(`${values.from} is not a saved bench:peers run`);
  for (const c of run.configs) {
    for (const [what, share] of [['warm passes', c.warm.othersWarm], ['cold starts', c.othersCold]] as const) {
      if (share !== undefined && share > 0.05) console.warn(`warning (${c.config}): other processes used ${pct(share)} of the CPU during the ${what}; times are inflated`);
    }
  }
  const doc = renderRun(run);
  console.log(`\n${doc}\n`);
  console.log(`took ${(run.durationS / 60).toFixed(1)} min`);
  const complete = !run.partial && !run.options.quick && !run.options.only && !run.options.settleMs && CONFIGS.every((c) => run.configs.some((r) => r.config === c.id));
  if (!complete) console.log('a partial, quick or one-configuration run: docs/benchmarks.md left alone');
  else if (!values['no-write']) {
    writeBetweenMarkers(DOC, docMarkers(run.browser), doc, { template: '# Benchmarks\n', appendMarkers: true });
    console.log(`written to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
