// Offline support for the demo page: registers /sw.js (production builds only) and shows in
// the footer how far the service worker got storing the app, its ORT files and models.
import { CHANNEL_NAME, SERVICE_WORKER_FILE, describeOffline, isOfflineMessage, type OfflineRequest } from './precache.ts';

/** true in `vite build` output (defined by tools/vite-offline.ts, which also emits /sw.js) */
declare const __OFFLINE_BUILD__: boolean | undefined;
const isBuiltApp = () => typeof __OFFLINE_BUILD__ !== 'undefined' && __OFFLINE_BUILD__;

export function startOfflineSupport(report: (text: string) => void): void {
  // production builds only (import.meta.env.PROD, or a build made under vitest, NODE_ENV=test)
  if (!import.meta.env.PROD && !isBuiltApp()) {
    // the dev server's files are not a build: nothing to precache (and a worker left over
    // from a built app on this origin would serve stale files: vite-offline replaces it)
    report('Offline mode needs the built app (npm run demo)');
    return;
  }
  if (!('serviceWorker' in navigator)) {
    report(
      window.isSecureContext
        ? 'Offline use is not available: this browser has no service workers'
        : 'Offline use is not available: the page must be served over https or from localhost',
    );
    return;
  }
  const container = navigator.serviceWorker;
  const hadController = container.controller !== null;
  let updated = false;
  container.addEventListener('controllerchange', () => {
    // a newer version took over: this page still runs the files it started with
    if (hadController) updated = true;
  });

  const channel = new BroadcastChannel(CHANNEL_NAME);
  channel.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (!isOfflineMessage(event.data)) return;
    const text = describeOffline(event.data);
    report(event.data.type === 'ready' && updated ? `${text} · a new version was installed: reload to use it` : text);
  });

  report('Preparing offline use…');
  container
    .register(`/${SERVICE_WORKER_FILE}`, { scope: '/' })
    .then((registration) => {
      // Installed earlier and nothing new to install: ask it how things stand (it answers on
      // the channel, re-storing anything the browser dropped). A new install reports by itself.
      const active = registration.active;
      if (active && !registration.installing && !registration.waiting) active.postMessage({ type: 'status' } satisfies OfflineRequest);
    })
    .catch((e: unknown) => {
      report(`Offline use is not available: ${e instanceof Error ? e.message : String(e)}`);
    });
}
