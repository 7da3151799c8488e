// Where the e2e suite reads test data and writes its build, clips and screenshots.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const E2E_DIR = resolve(PROJECT_ROOT, 'test-results/e2e');
/** per process: several e2e runs (developers, CI) may build at once */
export const RUN_DIR = resolve(E2E_DIR, `run-${process.pid}`);
export const SITE_DIR = resolve(RUN_DIR, 'site');
/** screenshots of each screen, for review */
export const SCREENSHOT_DIR = resolve(PROJECT_ROOT, 'test-results/screenshots');
/** ../shared/data, by relative path as the data's README asks */
export const DATA_DIR = resolve(PROJECT_ROOT, '../shared/data');
export const data = (path: string) => resolve(DATA_DIR, path);
