/**
 * Builds the runtime package from its one source, src/: each entry of package.json's
 * `exports` bundled into one ES module (shared code in chunks, so a class is defined once
 * whichever entries a server loads), with source maps holding the TypeScript source, and
 * the declarations tsc writes for the same entries. A server then loads a handful of files
 * instead of a hundred modules.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Each bundled file and the source module it is made from: one per `exports` subpath. */
export const ENTRIES = {
  index: "src/index.ts",
  transports: "src/transports/index.ts",
  testing: "src/testing/index.ts",
  client: "src/client/index.ts",
  modern: "src/modern.ts",
};

rmSync(join(here, "dist"), { recursive: true, force: true });
const { build } = await import("esbuild");
await build({
  absWorkingDir: here,
  entryPoints: ENTRIES,
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // The optional peers (jose, @opentelemetry/api) are imported by name at run time.
  packages: "external",
  sourcemap: true,
  sourcesContent: true,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
const typescript = dirname(require.resolve("typescript/package.json"));
const tsc = spawnSync(process.execPath, [join(typescript, "bin", "tsc"), "-p", join(here, "tsconfig.build.json")], { stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
