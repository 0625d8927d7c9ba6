/**
 * `mcp-gen tool`, `mcp-gen resource` and `mcp-gen prompt`: one flow for the three. Each
 * renders its skeleton and test from `templates/<kind>/`, refuses a name that collides
 * (an identifier the list file already holds from elsewhere, or a tool, resource or prompt
 * the project already registers), and adds the skeleton's registration function to the
 * kind's list (`src/tools/index.ts` and so on), which src/server.ts registers.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { listFiles } from "../toolbox/files.js";
import { withJsonValue } from "../toolbox/json-text.js";
import { packageRoot } from "../toolbox/package.js";
import type { PlannedFile } from "../toolbox/write.js";
import { applyFiles, requireProject, type ApplyOptions, type ApplyResult } from "./apply.js";
import { refuseCollisions, type ProjectReader } from "./handler.js";
import { validateName, type NameForms } from "./names.js";
import {
  parsePromptArguments,
  promptView,
  registrationName,
  resourceView,
  toolView,
  type Claim,
  type PrimitiveKind,
  type PrimitiveView,
  type ResourceChoice,
} from "./primitive-views.js";
import { registeredPrimitives } from "./registered.js";
import { addListEntry } from "./register.js";
import { projectSchemaLibrary } from "./schema-library.js";
import { renderTemplateTree } from "./render.js";

/** Where each kind's modules and their list live in a project. */
export const PRIMITIVE_LISTS = {
  tool: { folder: "src/tools", list: "tools" },
  resource: { folder: "src/resources", list: "resources" },
  prompt: { folder: "src/prompts", list: "prompts" },
} as const satisfies Record<PrimitiveKind, { folder: string; list: string }>;

export const listPathOf = (kind: PrimitiveKind) => `${PRIMITIVE_LISTS[kind].folder}/index.ts`;

/** The skeleton of `kind` for `names` (its module first, then its test), from templates/<kind>/. */
export function renderPrimitive(kind: PrimitiveKind, names: NameForms, view: object): Promise<PlannedFile[]> {
  return renderTemplateTree(join(packageRoot(), "templates", kind), view, { fileName: names.kebab }).then((files) => [
    ...files.filter((file) => file.path.startsWith("src/")),
    ...files.filter((file) => !file.path.startsWith("src/")),
  ]);
}

/** The new files and the edited list, or a one-line refusal; reads the project through `read`. */
export async function planPrimitive(
  kind: PrimitiveKind,
  names: NameForms,
  { view, claims }: PrimitiveView,
  read: ProjectReader,
  sources: () => string[],
): Promise<{ created: PlannedFile[]; edited: PlannedFile[] }> {
  const listPath = listPathOf(kind);
  const { list } = PRIMITIVE_LISTS[kind];
  const listText = read(listPath);
  if (listText === undefined) {
    throw new CliError(`this project has no ${listPath} listing its ${list} (it predates the ${kind} list)`, {
      hint: `create it with \`export const ${list} = [];\`, call each entry with the server in src/server.ts, then run this again`,
    });
  }
  const created = await renderPrimitive(kind, names, view);
  const imported = registrationName(kind, names);
  const moduleSpecifier = `./${names.kebab}.js`;
  await refuseCollisions(names, created[0]!, [{ path: listPath, text: listText, name: imported, from: moduleSpecifier }], kind);
  // What the project registers, except in the files this run writes (--force replaces them).
  const replaced = new Set(created.map((file) => file.path));
  const files = sources()
    .filter((path) => !replaced.has(path))
    .map((path) => ({ path, text: read(path) ?? "" }));
  refuseClaims(kind, names, claims, await registeredPrimitives(files));
  const registered = await addListEntry(listText, {
    path: listPath,
    list,
    imported,
    moduleSpecifier,
    byHand: `import ${imported} from ${moduleSpecifier} and call it with the server in src/server.ts`,
  });
  const edited = registered === listText ? [] : [{ path: listPath, content: registered }];
  return { created, edited: [...edited, ...(kind === "tool" ? conformanceCall(names, read) : [])] };
}

/** The file naming the tools a project's conformance test calls, with their arguments. */
export const CONFORMANCE_CALLS_FILE = "test/conformance-calls.json";
/** Arguments the tool skeleton accepts (templates/tool/src: one required `text`). */
const SKELETON_ARGUMENTS = { text: "hello" };

/** The new tool named in the conformance test's calls, so its answers are checked; nothing when the project has no such file. */
function conformanceCall(names: NameForms, read: ProjectReader): PlannedFile[] {
  const text = read(CONFORMANCE_CALLS_FILE);
  if (text === undefined) return [];
  return [{ path: CONFORMANCE_CALLS_FILE, content: withJsonValue(text, ["calls", names.snake], [SKELETON_ARGUMENTS], CONFORMANCE_CALLS_FILE) }];
}

function refuseClaims(kind: PrimitiveKind, names: NameForms, claims: readonly Claim[], registered: Awaited<ReturnType<typeof registeredPrimitives>>): void {
  for (const claim of claims) {
    const taken = registered.find((entry) => claim.calls.includes(entry.call) && entry.field === claim.field && entry.value === claim.value);
    if (taken) {
      throw new CliError(`invalid ${kind} name ${JSON.stringify(names.pascal)}: ${claim.describe} is already registered in ${taken.path}`, {
        hint: claim.hint,
        exitCode: 2,
      });
    }
  }
}

export interface PrimitiveOptions extends ApplyOptions {
  project: string;
  name: string;
}

/** Validates the name, plans against the project on disk, and writes all or nothing. */
async function generate(kind: PrimitiveKind, options: PrimitiveOptions, viewOf: (names: NameForms, root: string) => PrimitiveView): Promise<ApplyResult> {
  const names = validateName(options.name, kind);
  const root = requireProject(options.project);
  const view = viewOf(names, root);
  const read: ProjectReader = (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined);
  const sources = () => listFiles(join(root, "src"), "src/").filter((path) => path.endsWith(".ts"));
  const { created, edited } = await planPrimitive(kind, names, view, read, sources);
  return applyFiles(root, created, edited, options);
}

/**
 * `mcp-gen tool <Name>`: a tool with input and output schemas (zod when the project depends
 * on zod, else JSON Schema literals), its test, its entry in src/tools/index.ts.
 */
export function generateTool(options: PrimitiveOptions): Promise<ApplyResult> {
  return generate("tool", options, (names, root) => toolView(names, projectSchemaLibrary(root)));
}

/** `mcp-gen resource <Name> [--uri <uri> | --template <uriTemplate>]`. */
export function generateResource(options: PrimitiveOptions & ResourceChoice): Promise<ApplyResult> {
  return generate("resource", options, (names) => resourceView(names, options));
}

/** `mcp-gen prompt <Name> [--arguments a,b?]`. */
export function generatePrompt(options: PrimitiveOptions & { arguments: string[] }): Promise<ApplyResult> {
  const args = parsePromptArguments(options.arguments);
  return generate("prompt", options, (names) => promptView(names, args));
}
