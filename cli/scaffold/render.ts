import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HelperDelegate } from "handlebars";
import { listFiles } from "../toolbox/files.js";
import { sortedBy } from "../toolbox/sort.js";
import type { PlannedFile } from "../toolbox/write.js";

// The only helpers templates may call; an unknown one fails the render (strict mode).
const HELPERS: Record<string, HelperDelegate> = {
  eq: (left: unknown, right: unknown) => left === right,
  json: (value: unknown) => JSON.stringify(value),
  minus: (left: number, right: number) => left - right,
};

type Compile = (source: string, name: string) => (view: object) => string;

let compileTemplate: Compile | undefined;

/** One isolated handlebars instance for every template, created on first use. */
async function compiler(): Promise<Compile> {
  if (compileTemplate) return compileTemplate;
  const handlebars = (await import("handlebars")).default.create();
  for (const [name, helper] of Object.entries(HELPERS)) handlebars.registerHelper(name, helper);
  compileTemplate = (source, name) => {
    const template = handlebars.compile(source, { strict: true, noEscape: true });
    return (view) => {
      try {
        return template(view);
      } catch (error) {
        throw new Error(`template ${name}: ${(error as Error).message}`, { cause: error });
      }
    };
  };
  return compileTemplate;
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
 * Renders every file under `templateDir`: `.hbs` files through handlebars with `view`,
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
    const content = source.endsWith(".hbs") ? (await compiler())(text, source)(view) : text;
    files.push({ path, content });
  }
  return sortedBy(files, (file) => file.path);
}
