// Offline support for the demo page: registers sw.js next to the page (production builds only) and shows in
// the footer how far the service worker got storing the app, its ORT files and models.
import { CHANNEL_NAME, SERVICE_WORKER_FILE, describeOffline, isOfflineMessage, type OfflineRequest } from './precache.ts';

/** true in `vite build` output (defined by tools/vite-offline.ts, which also emits /sw.js) */
declare const __OFFLINE_BUILD__: boolean | undefined;
const isBuiltApp = () => typeof __OFFLINE_BUILD__ !== 'undefined' && __OFFLINE_BUILD__;

export interface OfflineSupport {
  /**
   * Resolves true once this page is controlled by the service worker (at once on later visits;
   * after the app shell is stored on a first visit), false when it will not be (no service
   * worker, an error, or not within CONTROL_WAIT_MS). Start the engine after it: a vision worker
   * started by a controlled page fetches its models through the service worker, which stores
   * them, so the page works offline as soon as the first warm-up is done.
   */
  controlled: Promise<boolean>;
  /** Asks the service worker to store every file still missing (call once the warm-up is done). */
  completeCache(): void;
}

/** Longest a first visit waits for control before starting the engine anyway (its models then bypass the cache until the next load). */
export const CONTROL_WAIT_MS = 5000;

export function startOfflineSupport(report: (text: string) => void): OfflineSupport {
  const unavailable: OfflineSupport = { controlled: Promise.resolve(false), completeCache: () => {} };
  // production builds only (import.meta.env.PROD, or a build made under vitest, NODE_ENV=test)
  if (!import.meta.env.PROD && !isBuiltApp()) {
    // the dev server's files are not a build: nothing to precache (and a worker left over
    // from a built app on this origin would serve stale files: vite-offline replaces it)
    report('Offline mode needs the built app (npm run demo)');
    return unavailable;
  }
  if (!('serviceWorker' in navigator)) {
    report(
      window.isSecureContext
        ? 'Offline use is not available: this browser has no service workers'
        : 'Offline use is not available: the page must be served over https or from localhost',
    );
    return unavailable;
  }
  const container = navigator.serviceWorker;
  const hadController = container.controller !== null;
  let updated = false;
  let completeAsked = false;
  const askStatus = () => void container.ready.then((r) => r.active?.postMessage({ type: 'status' } satisfies OfflineRequest));
  container.addEventListener('controllerchange', () => {
    // a newer version took over: this page still runs the files it started with; the new
    // version stores what it lacks once asked (at once if this page's warm-up is long done)
    if (hadController) {
      updated = true;
      if (completeAsked) askStatus();
    }
  });

  const channel = new BroadcastChannel(CHANNEL_NAME);
  channel.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (!isOfflineMessage(event.data)) return;
    const text = describeOffline(event.data);
    report(event.data.type === 'ready' && updated ? `${text} · a new version was installed: reload to use it` : text);
  });

  report('Preparing offline use…');
  // sw.js sits next to index.html: the app's folder, wherever the site serves it (any base path)
  const root = new URL('./', document.baseURI).href;
  const registered = container.register(new URL(SERVICE_WORKER_FILE, root).href, { scope: root }).then(
    () => true,
    (e: unknown) => {
      report(`Offline use is not available: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    },
  );
  const controlled = hadController
    ? Promise.resolve(true)
    : registered.then(
        (ok) =>
          ok &&
          new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(container.controller !== null), CONTROL_WAIT_MS);
            const done = () => {
              clearTimeout(timer);
              resolve(true);
            };
            if (container.controller) done();
            else container.addEventListener('controllerchange', done, { once: true });
          }),
      );
  return {
    controlled,
    completeCache: () => {
      completeAsked = true;
      void registered.then((ok) => ok && askStatus());
    },
  };
}
