import nodeModule from "node:module";

/**
 * Lets Node keep the compiled code of the libraries on disk between runs (Node 22.1 and newer;
 * a no-op before). ts-morph's TypeScript alone is several megabytes of JavaScript that every
 * cold `mcp-gen types` would compile again. Node puts the cache in its own temp folder and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off; it never changes what a run writes.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  try {
    enable?.();
  } catch {
    // A cache that cannot be set up (read-only temp folder) only costs speed.
  }
}
