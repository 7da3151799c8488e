// Settings shared by vite, vitest and the Playwright-driven tools (bench, eval, e2e).

/** COOP+COEP make the page cross-origin isolated, which ORT's threaded WASM needs. */
export const crossOriginIsolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags measured to work on these machines (see docs/testing.md). */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // exposes a (software) WebGPU adapter so the WebGPU path can be tested; "auto" ignores fallback adapters
  '--enable-unsafe-webgpu',
];
