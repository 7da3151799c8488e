// The demo page (minimal for now): starts the vision worker, shows the backend and
// loads every model, showing how long each took.
import { resolveRuntimeEnv } from '../env.ts';
import { startVisionWorker } from '../engine/vision-client.ts';
import { ModelManifestSchema } from '../models/manifest.ts';

const status = document.getElementById('runtime-status')!;
const info = document.getElementById('runtime-info')!;
const table = document.getElementById('model-table') as HTMLTableElement;

function addInfo(term: string, value: string): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  info.append(dt, dd);
}

async function start(): Promise<void> {
  const env = resolveRuntimeEnv();
  const vision = startVisionWorker();
  const backend = await vision.api.init(env);
  const manifest = ModelManifestSchema.parse(await (await fetch(new URL('manifest.json', env.modelBaseUrl))).json());
  for (const model of manifest.models) {
    status.textContent = `loading ${model.id}…`;
    const ms = await vision.api.loadModel(model.id);
    const row = table.tBodies[0]!.insertRow();
    for (const text of [model.id, `${(model.bytes / 1e6).toFixed(1)} MB`, `${ms.toFixed(0)} ms`]) row.insertCell().textContent = text;
    table.hidden = false;
  }
  const after = await vision.api.backendInfo();
  addInfo('Backend', after.backend === 'wasm' ? `WASM, ${after.threads} thread${after.threads === 1 ? '' : 's'}` : 'WebGPU');
  addInfo('Cross-origin isolated', String(after.crossOriginIsolated));
  if (backend.note) addInfo('Note', backend.note);
  status.textContent = `ready: ${manifest.models.length} models loaded`;
}

start().catch((e: unknown) => {
  status.textContent = `failed to start: ${e instanceof Error ? e.message : String(e)}`;
});
