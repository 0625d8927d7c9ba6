import { CliError } from "../errors.js";

/**
 * Fixed options, never a user's prettier config: the output must not depend on the machine.
 * babel-ts parses about twice as fast as prettier's typescript parser and prints the same;
 * the typescript parser is the fallback for syntax babel does not know.
 */
const PRETTIER_OPTIONS = { printWidth: 100, endOfLine: "lf" } as const;

export type FormatOne = (path: string, text: string) => Promise<string>;

/** Prettier for the generated TypeScript files (types.ts and the maps); other files pass through. */
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

function unparsable(path: string, error: Error): never {
  throw new CliError(`the generated ${path} is not valid TypeScript: ${error.message.split("\n")[0]}`, {
    hint: "this is a generator bug; report it with the schema",
  });
}
