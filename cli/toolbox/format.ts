import { join } from "node:path";
import type { PlannedFile } from "./write.js";

const PARSERS: Record<string, string> = { ts: "typescript", json: "json", md: "markdown" };

/**
 * Formats planned files with prettier the way the target project would: with its own
 * config, found from `root` (`.prettierrc`, package.json, ...), or with `config` when the
 * project does not exist yet. Files prettier does not know are returned unchanged.
 */
export async function formatFiles(root: string, files: readonly PlannedFile[], config?: Record<string, unknown>): Promise<PlannedFile[]> {
  const prettier = await import("prettier");
  const formatted: PlannedFile[] = [];
  for (const file of files) {
    const parser = PARSERS[file.path.slice(file.path.lastIndexOf(".") + 1)];
    if (!parser) {
      formatted.push(file);
      continue;
    }
    const filepath = join(root, file.path);
    const options = config ?? (await prettier.resolveConfig(filepath, { editorconfig: true })) ?? {};
    formatted.push({ path: file.path, content: await prettier.format(file.content, { ...options, filepath, parser }) });
  }
  return formatted;
}
