// The engine's and the demo's flows in webkit (test/engines/flows.ts; launcher: tools/harness/browsers.ts).
import { engineFlows } from './flows.ts';

engineFlows('webkit');
