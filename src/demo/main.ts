// The page's entry: the app (src/demo/app.ts, the engine and every screen: most of the page's
// JavaScript) is fetched and run after the first paint, so the page shows at once on a slow
// phone network rather than after that bundle. <main> reserves its room (style.css): the
// screens filling in move nothing on screen.
const load = () =>
  import('./app.ts')
    .then((app) => app.runApp())
    .catch((e: unknown) => {
      const status = document.getElementById('runtime-status');
      if (status) {
        status.textContent = `The page could not load its code: ${e instanceof Error ? e.message : String(e)}`;
        status.setAttribute('role', 'alert');
      }
      document.body.dataset.engine = 'failed';
    });

// a tab opened in the background gets no animation frame until it is shown: start at once there
if (document.visibilityState === 'hidden') void load();
else requestAnimationFrame(() => setTimeout(load, 0));
