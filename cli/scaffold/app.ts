/**
 * `mcp-gen app <Name>`: an MCP Apps view in a project. It writes, from `templates/app/`:
 * `src/apps/<name>.ts` (the tool linked to the view through the extension's `_meta` key, and the
 * view's `ui://` resource with the extension's MIME type), the view's page and script
 * (`src/apps/<name>/view.html`, `view.ts`, on the extension's app-side bridge), the page
 * builder and browser host the views share (`src/apps/page.ts`, `test/app-host.ts`, written
 * once), and the test. The tool and the resource join `src/tools/index.ts` and
 * `src/resources/index.ts` as every generator's output does. The project's newest revision with
 * a runtime is regenerated with the extension's published schema first (recorded in
 * package.json "mcp-gen".extensions), since the files read its generated facts, and the
 * packages they use are added to package.json.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { listFiles } from "../toolbox/files.js";
import { packageRoot, readPackageJson } from "../toolbox/package.js";
import { readProjectConfig, writeProjectConfig, type ProjectConfig } from "../toolbox/project-config.js";
import type { PlannedFile } from "../toolbox/write.js";
import { applyFiles, requireProject, type ApplyResult } from "./apply.js";
import { refuseCollisions, type ProjectReader } from "./handler.js";
import { validateName, type NameForms } from "./names.js";
import type { PrimitiveOptions } from "./primitive.js";
import { listPathOf, PRIMITIVE_LISTS } from "./primitive.js";
import { registeredPrimitives } from "./registered.js";
import { addListEntry } from "./register.js";
import { renderTemplateTree } from "./render.js";
import { refuseExisting } from "./write.js";

/** The package that publishes MCP Apps: its schema for the generator, its bridges for the view and the test host. */
export const APPS_PACKAGE = "@modelcontextprotocol/ext-apps";

/**
 * What the app's files use besides the runtime: the bridges at run time, a browser driver and a
 * bundler (the host-side bridge ships no browser build) for its test. Their ranges are
 * mcp-gen's own, else the version installed beside it.
 */
const APP_PACKAGES = {
  dependencies: [APPS_PACKAGE],
  devDependencies: ["playwright-core", "esbuild"],
} as const satisfies Record<"dependencies" | "devDependencies", readonly string[]>;

/** The one app package with an install script, which the project needs not run. */
const INSTALL_SCRIPT_DECLINED = "esbuild";

/** Files every app shares: written by the first `mcp-gen app`, kept by the next. */
const SHARED_FILES = new Set(["src/apps/page.ts", "test/app-host.ts"]);

export async function generateApp(options: PrimitiveOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "app");
  const root = requireProject(options.project);
  const read: ProjectReader = (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined);
  const config = readProjectConfig(root);
  if (config === undefined) {
    throw new CliError(`${root}/package.json has no "mcp-gen" key listing the revisions the project is generated from`, {
      hint: "run this in a project made by create-mcp-handler",
    });
  }
  await installAppsPackage(root, options.dryRun);
  const { loadExtensions } = await import("../generate/extend.js");
  const [apps] = await loadExtensions([APPS_PACKAGE], root);
  const view = appView(names, apps!.id);
  const rendered = await renderTemplateTree(join(packageRoot(), "templates", "app"), view, { fileName: names.kebab });
  const created = rendered.filter((file) => !SHARED_FILES.has(file.path) || read(file.path) === undefined);
  await refuseTaken(names, view, created, read, root);
  refuseExisting(root, created, options.force);
  const lists = await registrations(names, view, read);
  // The facts first (package.json's "mcp-gen" value is rewritten then), the packages after, read from that.
  if (!options.dryRun) await withAppsExtension(root, config);
  return applyFiles(root, created, [...lists, ...dependencyEdit(root)], options);
}

function appView(names: NameForms, extensionId: string) {
  const words = names.kebab.replaceAll("-", " ");
  return {
    names,
    extensionId,
    title: words[0]!.toUpperCase() + words.slice(1),
    toolName: names.snake,
    resourceName: `${names.kebab}-view`,
    viewUri: `ui://${names.kebab}/view.html`,
    constName: `${names.snake.toUpperCase()}_VIEW_URI`,
    toolFunction: `add${names.pascal}AppTool`,
    resourceFunction: `add${names.pascal}AppResource`,
  };
}

type AppView = ReturnType<typeof appView>;

/** Refuses, before anything is written, a name the lists already import or a tool or view the project already registers. */
async function refuseTaken(names: NameForms, view: AppView, created: readonly PlannedFile[], read: ProjectReader, root: string): Promise<void> {
  const moduleSpecifier = `../apps/${names.kebab}.js`;
  const targets = (["tool", "resource"] as const).map((kind) => {
    const path = listPathOf(kind);
    const text = read(path);
    if (text === undefined) throw new CliError(`this project has no ${path}`, { hint: `create it with \`export const ${PRIMITIVE_LISTS[kind].list} = [];\`` });
    return { path, text, name: kind === "tool" ? view.toolFunction : view.resourceFunction, from: moduleSpecifier };
  });
  await refuseCollisions(names, created[0]!, targets, "app");
  const replaced = new Set(created.map((file) => file.path));
  const sources = listFiles(join(root, "src"), "src/")
    .filter((path) => path.endsWith(".ts") && !replaced.has(path))
    .map((path) => ({ path, text: read(path) ?? "" }));
  const registered = await registeredPrimitives(sources);
  const taken = registered.find(
    (entry) => (entry.call === "addTool" && entry.field === "name" && entry.value === view.toolName) || (entry.field === "uri" && entry.value === view.viewUri),
  );
  if (taken) {
    throw new CliError(`invalid app name ${JSON.stringify(names.pascal)}: ${JSON.stringify(taken.value)} is already registered in ${taken.path}`, {
      hint: "choose another name, or rename the existing tool or resource",
      exitCode: 2,
    });
  }
}

/** The tool in src/tools/index.ts, the view in src/resources/index.ts. */
async function registrations(names: NameForms, view: AppView, read: ProjectReader): Promise<PlannedFile[]> {
  const moduleSpecifier = `../apps/${names.kebab}.js`;
  const edits: PlannedFile[] = [];
  for (const [kind, imported] of [
    ["tool", view.toolFunction],
    ["resource", view.resourceFunction],
  ] as const) {
    const path = listPathOf(kind);
    const text = read(path)!;
    const byHand = `import ${imported} from ${moduleSpecifier} and add it to the list in ${path}`;
    const next = await addListEntry(text, { path, list: PRIMITIVE_LISTS[kind].list, imported, moduleSpecifier, byHand });
    if (next !== text) edits.push({ path, content: next });
  }
  return edits;
}

/**
 * The extension's package installed in the project when neither the project nor mcp-gen has
 * it (a project installs mcp-gen without its development packages): its schema is what the
 * facts are regenerated with. The app's packages are added to package.json and the project's
 * package manager installs them; when that fails (offline), package.json is put back as it
 * was, so the project is left exactly as before.
 */
async function installAppsPackage(root: string, dryRun: boolean): Promise<void> {
  const { findPublishedExtension } = await import("../generate/extension-package.js");
  if (findPublishedExtension(APPS_PACKAGE, root) !== undefined) return;
  const { installIn, projectPackageManager } = await import("./install.js");
  const pm = projectPackageManager(root);
  const install = `${pm} install`;
  if (dryRun) {
    throw new CliError(`${APPS_PACKAGE} is not installed, and its schema is what the app's facts are generated from`, {
      hint: `run this without --dry-run (it adds the package and runs \`${install}\`)`,
    });
  }
  const manifest = join(root, "package.json");
  const before = readFileSync(manifest, "utf8");
  for (const edit of dependencyEdit(root)) writeFileSync(manifest, edit.content);
  const names = [...APP_PACKAGES.dependencies, ...APP_PACKAGES.devDependencies].join(", ");
  process.stdout.write(`adding ${names} to package.json and installing them with ${pm}: the app's facts come from ${APPS_PACKAGE}'s schema ...\n`);
  if (installIn(root, pm)) return;
  writeFileSync(manifest, before);
  throw new CliError(`\`${install}\` failed in ${root}, so ${APPS_PACKAGE} is not installed; nothing was changed`, {
    hint: `\`${pm === "npm" ? "npm install" : `${pm} add`} ${APPS_PACKAGE}@${rangeOf(APPS_PACKAGE)}\` there says why; once it installs, run this again`,
  });
}

/** package.json with the app's packages added where missing (none: no edit). */
function dependencyEdit(root: string): PlannedFile[] {
  const text = readFileSync(join(root, "package.json"), "utf8");
  const manifest = readPackageJson(root) as Record<string, unknown> & { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  let changed = false;
  for (const group of ["dependencies", "devDependencies"] as const) {
    for (const name of APP_PACKAGES[group]) {
      const listed = { ...manifest.dependencies, ...manifest.devDependencies };
      if (name in listed) continue;
      manifest[group] = sortedKeys({ ...manifest[group], [name]: rangeOf(name) });
      changed = true;
    }
  }
  // esbuild's postinstall only double-checks the binary its platform package brings; npm 11
  // blocks unapproved install scripts and warns about each, so the project declines it.
  const allowScripts = (manifest.allowScripts ?? {}) as Record<string, unknown>;
  if (!(INSTALL_SCRIPT_DECLINED in allowScripts)) {
    manifest.allowScripts = { ...allowScripts, [INSTALL_SCRIPT_DECLINED]: false };
    changed = true;
  }
  if (!changed) return [];
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? "  ";
  return [{ path: "package.json", content: `${JSON.stringify(manifest, null, indent)}\n` }];
}

function sortedKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** mcp-gen's own range for a package, else `^` and the version installed beside mcp-gen. */
function rangeOf(name: string): string {
  const own = readPackageJson(packageRoot());
  const listed = own.dependencies?.[name] ?? own.devDependencies?.[name];
  if (listed !== undefined) return listed;
  const installed = join(packageRoot(), "node_modules", name);
  if (existsSync(join(installed, "package.json"))) return `^${readPackageJson(installed).version}`;
  throw new CliError(`cannot tell which ${name} to add: mcp-gen neither lists nor has it installed`, { hint: `npm install ${name}, then run this again` });
}

/**
 * The project's newest revision with a runtime, regenerated with the extension when its list
 * lacks it: the app's files read `EXTENSIONS` from there. Each schema is found as
 * `mcp-gen types` finds it ($MCP_SCHEMAS_DIR, or the pinned URL). The runtime package is
 * built without the extension, so that revision then gets a runtime copy bound to it.
 */
async function withAppsExtension(root: string, config: ProjectConfig): Promise<void> {
  const { readEras } = await import("../generate/import-point.js");
  const revision = readEras(config.revisions, resolve(root, config.out)).findLast((entry) => entry.era === "listen")?.revision;
  if (revision === undefined) throw new CliError(`no revision the project lists has a runtime under ${config.out}/`, { hint: "run `npx mcp-gen types` first" });
  const listed = config.extensions[revision] ?? [];
  if (listed.includes(APPS_PACKAGE)) return;
  const next: ProjectConfig = { ...config, extensions: { ...config.extensions, [revision]: [...listed, APPS_PACKAGE] } };
  const { regenerateProject } = await import("../generate/project.js");
  await regenerateProject(root, next, false);
  writeProjectConfig(root, next);
}
