import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { sorted } from "./sort.js";

/**
 * The runtime's sources, as they are under templates/runtime/, keyed by their path inside
 * the output (runtime/<file>). They import the version's facts from ../types.js,
 * ../methods.js and ../capabilities.js, which sit beside runtime/ in the output.
 */
export function readRuntimeTemplates(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of listFiles(dir)) {
    files.set(`runtime/${relative(dir, path).split(sep).join("/")}`, readFileSync(path, "utf8"));
  }
  return files;
}

/** Every template gets the generated header; TypeScript files only, the rest verbatim. */
export function emitRuntime(templates: ReadonlyMap<string, string>, header: string): Map<string, string> {
  return new Map([...templates].map(([path, text]) => [path, path.endsWith(".ts") ? header + text : text]));
}

function listFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return sorted(names).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
