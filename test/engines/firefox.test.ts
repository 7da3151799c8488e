// The engine's and the demo's flows in firefox (test/engines/flows.ts; launcher: tools/harness/browsers.ts).
import { engineFlows } from './flows.ts';

engineFlows('firefox');
