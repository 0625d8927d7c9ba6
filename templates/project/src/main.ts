/**
 * The entry point: `node dist/src/main.js`. `npm run build` also writes dist/server.js, the
 * whole server of src/run.ts (with the generated code and the runtime) in one module, which
 * starts sooner than the modules it is made from (`mcp-gen prebundle`). It is loaded unless a
 * `tsc` has run since it was written; then run.ts's own output is, so an edit is never served
 * from a stale bundle. Run from src/ (by tsx, say), run.ts is.
 */
import { statSync } from "node:fs";

const bundle = new URL("../server.js", import.meta.url);
const run = new URL("./run.js", import.meta.url);
/** Rewritten by every emitting `tsc` run (without `incremental`, run.js is, as every output is). */
const buildInfo = new URL("../.tsbuildinfo", import.meta.url);

/** Whether the bundle is newer than tsc's last output; never when this runs from src/ (no run.js beside it). */
function bundleIsCurrent(): boolean {
  const bundled = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  const compiled = statSync(run, { throwIfNoEntry: false })?.mtimeMs;
  if (bundled === undefined || compiled === undefined) return false;
  return (
    Math.max(compiled, statSync(buildInfo, { throwIfNoEntry: false })?.mtimeMs ?? 0) <= bundled
  );
}

// Node 22 and newer keep what they compile of the modules loaded from here on in a cache
// (in the temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): the next start is sooner.
const { enableCompileCache } = process.getBuiltinModule("node:module") as {
  enableCompileCache?: () => unknown;
};
try {
  enableCompileCache?.();
} catch {
  // a temp folder that cannot hold it costs only that speed
}
await import(bundleIsCurrent() ? bundle.href : "./run.js");
