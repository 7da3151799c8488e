// The demo app (loaded by main.ts after the first paint): starts the engine (models in a
// worker, galleries and media in IndexedDB), answers https://api.kairos.com/… in-page, and
// mounts one screen per tab.
import { DEMO_CREDENTIALS } from '../api/options.ts';
import { mountSyncBadge } from './galleries/sync-badge.ts';
import { syncForm } from './galleries/sync-form.ts';
import { loadSyncSettings, scrubSecrets, toSyncOptions } from './galleries/sync-settings.ts';
import { mountDetect } from './sections/detect.ts';
import { mountDeveloper } from './sections/developer.ts';
import { mountEmotion } from './sections/emotion.ts';
import { mountGalleries } from './sections/galleries.ts';
import { mountLive } from './sections/live.ts';
import { ApiClient } from './ui/api-client.ts';
import { Camera } from './ui/camera.ts';
import { byId, formatMs } from './ui/dom.ts';
import { deferred } from './ui/deferred.ts';
import { setupTabs } from './ui/tabs.ts';
import { startOfflineSupport } from './offline/register.ts';

/** Lets the browser paint and handle input between two pieces of start-up work (no long task). */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Mounts Detect & analyse and the tabs at once, then starts the engine and the other screens. */
export function runApp(): void {
  const status = byId('runtime-status');
  const credentials = DEMO_CREDENTIALS;
  /** settles when the fetch shim answers https://api.kairos.com/… (a request made earlier waits for it) */
  const engineReady = deferred<void>();
  const api = new ApiClient({ appId: credentials.appId, appKey: credentials.appKey }, undefined, engineReady.promise);
  const camera = new Camera();
  let live: { refresh(): void } | undefined;
  // the screen a visitor sees first is there as soon as this module runs, not after the engine's
  // start; a photo picked meanwhile waits for the engine
  mountDetect(byId('panel-detect'), api, camera);
  // leaving a screen releases the webcam
  setupTabs(byId('tabs'), (id) => {
    camera.stop();
    if (id === 'live') live?.refresh();
  });

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
    // sync: only with settings from the "Team sync" form (src/demo/galleries/sync-form.ts); never from a URL
    const prefill = scrubSecrets();
    const saved = await loadSyncSettings();
    const sync = saved && toSyncOptions(saved.settings);
    // the engine's code is its own chunk, run in its own task (not with the screens' code)
    const { createEngine, installFetchShim } = await import('../index.ts');
    const engine = await createEngine({ modelBaseUrl: 'models/', ortWasmBaseUrl: 'ort/', ...(sync ? { sync } : {}) });
    installFetchShim(engine);
    engineReady.resolve();
    // models load now, while the user picks a photo, rather than inside the first request
    const warming = engine.warmUp();
    // the developer panel first: it logs every exchange from here on
    mountDeveloper(byId('panel-developer'), engine, api, warming);
    // the hidden screens one task each, so no single long task holds the page
    await nextTask();
    mountGalleries(byId('panel-galleries'), engine, api, camera);
    mountSyncBadge(byId('panel-galleries'), engine);
    byId('panel-galleries').append(syncForm({ ...(saved ? { active: saved.settings, remembered: saved.remembered } : {}), prefill }));
    await nextTask();
    mountEmotion(byId('panel-emotion'), engine, api, camera);
    await nextTask();
    live = mountLive(byId('panel-live'), engine, api, camera);
    if (!byId('panel-live').hidden) live.refresh();

    const b = engine.backend;
    // with sync on, enrolled templates do leave (docs/sync.md): the line must not say otherwise
    const facts = `${b.backend === 'wasm' ? `WASM, ${b.threads} threads` : 'WebGPU'} · ${sync ? 'galleries shared through the sync service' : 'nothing leaves this device'}`;
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
    engineReady.reject(e);
    status.textContent = `The engine failed to start: ${e instanceof Error ? e.message : String(e)}`;
    status.setAttribute('role', 'alert');
    document.body.dataset.engine = 'failed';
  });
}
