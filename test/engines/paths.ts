// Where the engines project reads test data and writes its build and per-browser reports.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** per process: several runs (developers, CI) may build at once */
export const RUN_DIR = resolve(PROJECT_ROOT, `test-results/engines/run-${process.pid}`);
/** what each browser's run found (versions, the engine's path, step times): one JSON per browser */
export const REPORT_DIR = resolve(PROJECT_ROOT, 'test-results/engines');
/** ../shared/data, by relative path as the data's README asks */
export const DATA_DIR = resolve(PROJECT_ROOT, '../shared/data');
export const FLOWS_PAGE = '/test/engines/pages/flows.html';
