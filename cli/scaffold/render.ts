import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { listFiles } from "../toolbox/files.js";
import { packageRoot } from "../toolbox/package.js";
import { sortedBy } from "../toolbox/sort.js";
import type { PlannedFile } from "../toolbox/write.js";
import { fromAst, renderTemplate, type TemplateNode } from "./template.js";

/** Where `npm run build` stores every template as nodes (build-finish.ts), relative to the package root. */
export const PRECOMPILED_TEMPLATES = join("dist", "templates.json");

/** A stored template: its source, so an edited template is never rendered from a stale tree, and its nodes. */
export interface PrecompiledTemplate {
  source: string;
  nodes: TemplateNode[];
}

let precompiled: Record<string, PrecompiledTemplate> | undefined;

/** The stored templates keyed by path from the package root; none when the package was not built. */
function storedTemplates(): Record<string, PrecompiledTemplate> {
  if (precompiled !== undefined) return precompiled;
  try {
    precompiled = JSON.parse(readFileSync(join(packageRoot(), PRECOMPILED_TEMPLATES), "utf8")) as Record<string, PrecompiledTemplate>;
  } catch {
    precompiled = {};
  }
  return precompiled;
}

let parse: ((source: string) => Parameters<typeof fromAst>[0]) | undefined;

/** A template's nodes from handlebars' parser (only when no stored tree matches: from source, or an edited template). */
export async function parseTemplate(source: string): Promise<TemplateNode[]> {
  parse ??= (await import("handlebars")).default.parse as unknown as (source: string) => Parameters<typeof fromAst>[0];
  return fromAst(parse(source));
}

/** Renders one template file's text with `view`. */
export type FileRenderer = (path: string, text: string, view: object) => Promise<string>;

/** Renders one template file's text with `view`, from its stored tree when it matches. */
export const renderFile: FileRenderer = async function renderFile(path: string, text: string, view: object): Promise<string> {
  const stored = storedTemplates()[relative(packageRoot(), path).split("\\").join("/")];
  try {
    return renderTemplate(stored?.source === text ? stored.nodes : await parseTemplate(text), view);
  } catch (error) {
    throw new Error(`template ${path}: ${(error as Error).message}`, { cause: error });
  }
};

let fileRenderer: FileRenderer = renderFile;

/** Puts `next` in place of the renderer (a test holds ours to handlebars' output this way); returns the one it replaced. */
export function swapFileRenderer(next: FileRenderer): FileRenderer {
  const previous = fileRenderer;
  fileRenderer = next;
  return previous;
}

/**
 * The output path of a template file (relative, `/`-separated): a trailing `.hbs` is dropped, a leading `_` on a
 * file name becomes `.` (npm leaves dotfiles such as .gitignore out of packages), and
 * `__name__` in a path is replaced by `fileName`.
 */
export function outputPath(templatePath: string, fileName = ""): string {
  return templatePath
    .replace(/\.hbs$/, "")
    .replace(/(^|\/)_(?!_)/g, "$1.")
    .replaceAll("__name__", fileName);
}

/**
 * Renders every file under `templateDir`: `.hbs` files with `view` (template.ts),
 * the rest copied verbatim. `include(path)` (the output path) may leave files out.
 */
export async function renderTemplateTree(
  templateDir: string,
  view: object,
  options: { fileName?: string; include?: (path: string) => boolean } = {},
): Promise<PlannedFile[]> {
  const files: PlannedFile[] = [];
  for (const templatePath of listFiles(templateDir)) {
    const path = outputPath(templatePath, options.fileName);
    if (options.include && !options.include(path)) continue;
    const source = join(templateDir, templatePath);
    const text = readFileSync(source, "utf8");
    const content = source.endsWith(".hbs") ? await fileRenderer(source, text, view) : text;
    files.push({ path, content });
  }
  return sortedBy(files, (file) => file.path);
}
