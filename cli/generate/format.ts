import { CliError } from "../errors.js";

/**
 * Fixed options, never a user's prettier config: the output must not depend on the machine.
 * babel-ts parses about twice as fast as prettier's typescript parser and prints the same;
 * the typescript parser is the fallback for syntax babel does not know.
 */
const PRETTIER_OPTIONS = { printWidth: 100, endOfLine: "lf" } as const;

export type FormatOne = (path: string, text: string) => Promise<string>;

/** Prettier for TypeScript files; every other file passes through unchanged. */
export async function loadFormatter(): Promise<FormatOne> {
  const prettier = await import("prettier");
  return async (path, text) => {
    if (!path.endsWith(".ts")) return text;
    try {
      return await prettier.format(text, { ...PRETTIER_OPTIONS, parser: "babel-ts" });
    } catch {
      return prettier.format(text, { ...PRETTIER_OPTIONS, parser: "typescript" }).catch((error: Error) => unparsable(path, error));
    }
  };
}

/** The one prettier pass over a set of files. */
export async function formatFiles(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const format = await loadFormatter();
  const formatted = new Map<string, string>();
  for (const [path, text] of files) formatted.set(path, await format(path, text));
  return formatted;
}

/**
 * Formats files from a list two threads share: each claims the next index from `next` (an
 * Int32Array over a SharedArrayBuffer), so the work splits itself by speed.
 */
export async function formatClaimed(files: ReadonlyArray<readonly [string, string]>, next: Int32Array, format?: FormatOne): Promise<Array<[string, string]>> {
  if (Atomics.load(next, 0) >= files.length) return [];
  format ??= await loadFormatter();
  const done: Array<[string, string]> = [];
  for (let index = Atomics.add(next, 0, 1); index < files.length; index = Atomics.add(next, 0, 1)) {
    const [path, text] = files[index];
    done.push([path, await format(path, text)]);
  }
  return done;
}

function unparsable(path: string, error: Error): never {
  const source = path.startsWith("runtime/") ? `templates/${path}` : `the generated ${path}`;
  throw new CliError(`${source} is not valid TypeScript: ${error.message.split("\n")[0]}`, {
    hint: path.startsWith("runtime/") ? "fix the template, then regenerate" : "this is a generator bug; report it with the schema",
  });
}
