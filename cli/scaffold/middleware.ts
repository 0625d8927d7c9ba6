/**
 * `mcp-gen middleware <Name>`: a typed middleware around tools/call and its test, from
 * `templates/middleware/`, added to the project's middleware list (`src/middleware/index.ts`),
 * which src/server.ts registers with `server.use`. The same flow as `mcp-gen tool`: the name
 * is checked, collisions with what the list already imports are refused, and the list gets
 * its entry by an AST edit that leaves every other byte as it was.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot } from "../toolbox/package.js";
import type { PlannedFile } from "../toolbox/write.js";
import { applyFiles, requireProject, type ApplyOptions, type ApplyResult } from "./apply.js";
import { refuseCollisions, type ProjectReader } from "./handler.js";
import { validateName, type NameForms } from "./names.js";
import { addListEntry } from "./register.js";
import { renderTemplateTree } from "./render.js";

/** The file listing a project's middleware, and the array it exports. */
export const MIDDLEWARE_LIST_PATH = "src/middleware/index.ts";
const MIDDLEWARE_LIST = "middleware";

/** `Audit` (or `AuditMiddleware`): the functions `addAuditMiddleware` and `auditMiddleware`, the type `AuditEntry`. */
export function middlewareNames(names: NameForms): { functionName: string; factoryName: string; entryType: string } {
  const base = names.pascal.endsWith("Middleware") ? names.pascal.slice(0, -"Middleware".length) || names.pascal : names.pascal;
  const camel = base[0]!.toLowerCase() + base.slice(1);
  return { functionName: `add${base}Middleware`, factoryName: `${camel}Middleware`, entryType: `${base}Entry` };
}

/** The middleware's module, then its test. */
export async function renderMiddleware(names: NameForms): Promise<PlannedFile[]> {
  const files = await renderTemplateTree(join(packageRoot(), "templates", "middleware"), { names, ...middlewareNames(names) }, { fileName: names.kebab });
  return [...files.filter((file) => file.path.startsWith("src/")), ...files.filter((file) => !file.path.startsWith("src/"))];
}

/** The new files and the edited list, or a one-line refusal; reads the project through `read`. */
export async function planMiddleware(read: ProjectReader, names: NameForms): Promise<{ created: PlannedFile[]; edited: PlannedFile[] }> {
  const listText = read(MIDDLEWARE_LIST_PATH);
  if (listText === undefined) {
    throw new CliError(`this project has no ${MIDDLEWARE_LIST_PATH} listing its middleware (it predates the middleware list)`, {
      hint: "create it with `export const middleware = [];`, call each entry with the server in src/server.ts, then run this again",
    });
  }
  const created = await renderMiddleware(names);
  const { functionName } = middlewareNames(names);
  const moduleSpecifier = `./${names.kebab}.js`;
  await refuseCollisions(names, created[0]!, [{ path: MIDDLEWARE_LIST_PATH, text: listText, name: functionName, from: moduleSpecifier }], "middleware");
  const registered = await addListEntry(listText, {
    path: MIDDLEWARE_LIST_PATH,
    list: MIDDLEWARE_LIST,
    imported: functionName,
    moduleSpecifier,
    byHand: `import ${functionName} from ${moduleSpecifier} and call it with the server in src/server.ts`,
  });
  return { created, edited: registered === listText ? [] : [{ path: MIDDLEWARE_LIST_PATH, content: registered }] };
}

export interface MiddlewareOptions extends ApplyOptions {
  project: string;
  name: string;
}

/** Validates the name, plans against the project on disk, and writes all or nothing. */
export async function generateMiddleware(options: MiddlewareOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "middleware");
  const root = requireProject(options.project);
  const read: ProjectReader = (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined);
  const { created, edited } = await planMiddleware(read, names);
  return applyFiles(root, created, edited, options);
}
