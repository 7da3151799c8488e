// The engine's and the demo's flows in chromium (test/engines/flows.ts; launcher: tools/harness/browsers.ts).
import { engineFlows } from './flows.ts';

engineFlows('chromium');
