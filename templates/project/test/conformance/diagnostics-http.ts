/**
 * Loaded into the built server by start-http.ts (`node --import`) before src/run.js runs:
 * appends the suite's diagnostic tool (diagnostics.ts) to the tools list src/server.ts
 * registers, so the server the suite checks is the one `npm start` starts, plus that tool.
 */
import { tools } from "../../src/tools/index.js";
import { addSuiteDiagnostics } from "./diagnostics.js";

tools.push(addSuiteDiagnostics);
