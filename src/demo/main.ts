// The demo page: detect & analyse a photo with the engine, and a developer panel showing
// the backend and the exact request/response of the last action.
import { createEngine, type DetectFace, type DetectResponse, type Engine, type FaceErrorBody } from '../index.ts';
import { drawFaces } from './overlay.ts';
import { faceCard } from './face-card.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('runtime-status');
const message = $('detect-message');
const result = $('detect-result');
const canvas = $<HTMLCanvasElement>('detect-canvas');
const cards = $('face-cards');

function addInfo(term: string, value: string): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  $('runtime-info').append(dt, dd);
}

function showError(text: string): void {
  message.textContent = text;
  message.hidden = false;
}

function showExchange(request: unknown, response: unknown): void {
  $('dev-request').textContent = `POST /detect\n${JSON.stringify(request, null, 2)}`;
  $('dev-response').textContent = JSON.stringify(response, null, 2);
}

async function analyse(engine: Engine, file: Blob): Promise<void> {
  message.hidden = true;
  const selector = [($('opt-roll') as HTMLInputElement).checked ? 'ROLL' : 'FRONTAL', ($('opt-liveness') as HTMLInputElement).checked ? 'liveness' : '']
    .filter(Boolean)
    .join(',');
  status.textContent = 'Analysing…';
  const started = performance.now();
  const response: DetectResponse | FaceErrorBody = await engine.detect({ image: file, selector });
  status.textContent = `Done in ${Math.round(performance.now() - started)} ms`;
  showExchange({ image: `<${file.type || 'image'}, ${file.size} bytes>`, selector }, response);
  if ('Errors' in response) {
    result.hidden = true;
    const e = response.Errors[0]!;
    showError(e.ErrCode === 5002 ? 'No face found in this photo.' : `${e.Message} (error ${e.ErrCode})`);
    return;
  }
  const faces: DetectFace[] = response.images[0]!.faces;
  await drawFaces(canvas, file, faces);
  cards.replaceChildren(...faces.map(faceCard));
  result.hidden = false;
}

async function start(): Promise<void> {
  const engine = await createEngine();
  const b = engine.backend;
  addInfo('Backend', b.backend === 'wasm' ? `WASM, ${b.threads} thread${b.threads === 1 ? '' : 's'}` : 'WebGPU');
  addInfo('Cross-origin isolated', String(b.crossOriginIsolated));
  if (b.note) addInfo('Note', b.note);
  status.textContent = 'Ready: drop a photo to find faces.';

  const input = $<HTMLInputElement>('photo-input');
  const zone = $('dropzone');
  const take = (file: File | null | undefined) => {
    if (file) analyse(engine, file).catch((e: unknown) => showError(String(e)));
  };
  input.addEventListener('change', () => take(input.files?.[0]));
  zone.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') input.click();
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    take(e.dataTransfer?.files[0]);
  });
  document.addEventListener('paste', (e) => take([...(e.clipboardData?.files ?? [])][0]));
}

start().catch((e: unknown) => {
  status.textContent = `The engine failed to start: ${e instanceof Error ? e.message : String(e)}`;
});
