/** Fixed options, never a user's prettier config: the output must not depend on the machine. */
const PRETTIER_OPTIONS = { parser: "typescript", printWidth: 100, endOfLine: "lf" } as const;

/** The one prettier pass over every TypeScript file of the output; other files pass through. */
export async function formatFiles(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const prettier = await import("prettier");
  const formatted = new Map<string, string>();
  for (const [path, text] of files) {
    formatted.set(path, path.endsWith(".ts") ? await prettier.format(text, PRETTIER_OPTIONS) : text);
  }
  return formatted;
}
