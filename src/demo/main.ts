// The demo app: starts the engine (models in a worker, galleries and media in IndexedDB),
// answers https://api.kairos.com/… in-page, and mounts one screen per tab.
import { createEngine, DEMO_CREDENTIALS, installFetchShim } from '../index.ts';
import { mountDetect } from './sections/detect.ts';
import { mountDeveloper } from './sections/developer.ts';
import { mountEmotion } from './sections/emotion.ts';
import { mountGalleries } from './sections/galleries.ts';
import { mountLive } from './sections/live.ts';
import { ApiClient } from './ui/api-client.ts';
import { Camera } from './ui/camera.ts';
import { byId, formatMs } from './ui/dom.ts';
import { setupTabs } from './ui/tabs.ts';
import { startOfflineSupport } from './offline/register.ts';

const status = byId('runtime-status');

async function start(): Promise<void> {
  const started = performance.now();
  // the vision worker must start under the service worker, so the models it fetches on a first
  // visit are stored as they arrive (offline right after the first warm-up: docs/offline.md)
  const offline = startOfflineSupport((text) => (byId('offline-status').textContent = text));
  const controlled = await offline.controlled;
  document.body.dataset.offlineControlled = String(controlled);
  // how long the engine waited for it (the first visit's cost; ~0 on later visits)
  document.body.dataset.offlineWaitMs = String(Math.round(performance.now() - started));
  // next to the page, not at the site root: the built app works under any base path
  const engine = await createEngine({ modelBaseUrl: 'models/', ortWasmBaseUrl: 'ort/' });
  installFetchShim(engine);
  const credentials = DEMO_CREDENTIALS;
  const api = new ApiClient({ appId: credentials.appId, appKey: credentials.appKey });
  const camera = new Camera();

  mountDetect(byId('panel-detect'), api, camera);
  mountGalleries(byId('panel-galleries'), engine, api, camera);
  mountEmotion(byId('panel-emotion'), engine, api, camera);
  const live = mountLive(byId('panel-live'), engine, api, camera);
  // models load now, while the user picks a photo, rather than inside the first request
  const warming = engine.warmUp();
  mountDeveloper(byId('panel-developer'), engine, api, warming);
  // leaving a screen releases the webcam
  setupTabs(byId('tabs'), (id) => {
    camera.stop();
    if (id === 'live') live.refresh();
  });

  const b = engine.backend;
  const facts = `${b.backend === 'wasm' ? `WASM, ${b.threads} threads` : 'WebGPU'} · nothing leaves this device`;
  status.textContent = `Ready · loading the models… · ${facts}`;
  document.body.dataset.engine = 'ready';
  warming
    .then(
      () => {
        status.textContent = `Ready in ${formatMs(performance.now() - started)} · ${facts}`;
        document.body.dataset.models = 'warm';
      },
      (e: unknown) => {
        // not fatal: each model then loads when a request first needs it (and says why it cannot)
        status.textContent = `Ready · the models could not be preloaded (${e instanceof Error ? e.message : String(e)}) · ${facts}`;
        document.body.dataset.models = 'failed';
      },
    )
    // the rest of the app (models no default request uses) is stored after the warm-up, so it
    // never competes with it for the network
    .finally(() => offline.completeCache());
}

start().catch((e: unknown) => {
  status.textContent = `The engine failed to start: ${e instanceof Error ? e.message : String(e)}`;
  status.setAttribute('role', 'alert');
  document.body.dataset.engine = 'failed';
});
