import { defineConfig, mergeConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { chromiumArgs, chromiumPath } from './tools/browser-env.ts';
import viteConfig from './vite.config.ts';
import { stallingRoute } from './tools/vite-stalling-route.ts';

// Five projects: "unit" runs pure code and model parity in Node; "browser" runs
// everything that touches ORT-web, workers, canvas, video or IndexedDB in Debian's Chromium;
// "e2e" drives the production build of the demo page in Chromium with playwright-core;
// "package" packs the library and runs it in fresh vite, webpack and no-bundler apps;
// "engines" runs the engine's and the demo's flows in Chromium, Firefox and WebKit.
export default mergeConfig(viteConfig, defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'node',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        plugins: [stallingRoute()],
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: chromiumPath, args: chromiumArgs } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.e2e.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          // one page at a time: each runs the models on a 2-core machine
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          // the npm package in fresh vite / webpack / no-bundler apps (test/package/package.test.ts)
          name: 'package',
          environment: 'node',
          include: ['test/package/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          // the same flows in Chromium, Firefox and WebKit (test/engines/flows.ts, tools/harness/browsers.ts)
          name: 'engines',
          environment: 'node',
          include: ['test/engines/**/*.test.ts'],
          globalSetup: ['test/engines/global-setup.ts'],
          // one browser at a time: each runs the models on a 2-core machine
          fileParallelism: false,
          // every step sets its own bound (flows.ts); these only catch a hook without one
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        extends: true,
        test: {
          // the sync service (server/) and engine sync on real PostgreSQL: tools/test-postgres.sh
          name: 'sync',
          environment: 'node',
          include: ['test/sync/**/*.test.ts'],
          globalSetup: ['test/sync/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
}));
