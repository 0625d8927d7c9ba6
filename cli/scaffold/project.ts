import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { CliError } from "../errors.js";
import { RUNTIME_ENTRY } from "../generate/manifest.js";
import { versionFolder } from "../generate/verify.js";
import { eventSourceChanges, type EventSourceChoice } from "./event-source.js";
import { listFiles } from "../toolbox/files.js";
import { formatFiles } from "../toolbox/format.js";
import { packageRoot } from "../toolbox/package.js";
import { sortedBy } from "../toolbox/sort.js";
import type { PlannedFile } from "../toolbox/write.js";
import { validateName, type NameForms } from "./names.js";
import { handlerClassName, handlerLandings, parseNotifications, refuseCollisions, renderHandler, type ProjectReader } from "./handler.js";
import { PACKAGE_KINDS } from "./notification-kinds.js";
import { generatorDependency, packageInfo, runtimeDependency, runtimePackage } from "./package-root.js";
import { renderPrimitive } from "./primitive.js";
import { parsePromptArguments, promptView, resourceView, type PrimitiveKind, type PrimitiveView } from "./primitive-views.js";
import { renderTemplateTree } from "./render.js";
import { DEFAULT_REVISIONS, planGenerated, projectConfigFor } from "./generated.js";
import { connectView } from "../install/snippets.js";
import { planDockerFiles } from "../ship/docker/index.js";
import { devDependencySpec, zodDependencySpec, type SchemaLibrary } from "./schema-library.js";

export type TransportChoice = "stdio" | "http" | "both";
export type PackageManager = "npm" | "pnpm" | "yarn";
export type AuthChoice = "none" | "oauth";

export interface ProjectOptions {
  /** Absolute path of the folder to create. */
  dir: string;
  transport: TransportChoice;
  /** The first subscription handler (the sample, wired to the sample tool). */
  handler: NameForms;
  pm: PackageManager;
  /** What `npm start` publishes events through; tests always use the in-process source. */
  eventSource?: EventSourceChoice;
  /** `oauth`: an OAuth resource server on HTTP (src/serve/oauth.ts) and the admin_reset tool; default none. */
  auth?: AuthChoice;
  /** The protocol revisions the project lists (package.json "mcp-gen"); default DEFAULT_REVISIONS. */
  revisions?: readonly string[];
  /** How its tool schemas are written; zod adds the dependency. Default json-schema. */
  schemaLibrary?: SchemaLibrary;
  /** A Dockerfile and .dockerignore (cli/ship/docker/); default none. */
  docker?: boolean;
}

/** Handler names up to this length render already formatted by the project's prettier config. */
export const PREFORMATTED_NAME_LENGTH = 24;

/**
 * Where a project keeps generated code: beside src/, not in it, so that src/mcp.ts is the
 * one file under src/ and test/ that names the revision.
 */
export const GENERATED_FOLDER = "generated";

/** The npm package name for a project folder: its base name, checked against npm's rules. */
export function projectPackageName(dir: string): string {
  const name = basename(dir);
  if (!/^[a-z0-9][a-z0-9._~-]*$/.test(name) || name.length > 214) {
    throw new CliError(`the folder name ${JSON.stringify(name)} is not a valid npm package name`, {
      hint: "use lowercase letters, digits, '-', '.' or '_', e.g. my-mcp-server",
      exitCode: 2,
    });
  }
  return name;
}

/** Every file of a new project, rendered and formatted, paths relative to the project. */
export async function planProject(options: ProjectOptions): Promise<PlannedFile[]> {
  const root = packageRoot();
  const generator = packageInfo(root);
  const dependency = generatorDependency(root);
  const runtime = { ...runtimePackage(root), ...runtimeDependency(root) };
  const listed = projectConfigFor(options.revisions ?? DEFAULT_REVISIONS, GENERATED_FOLDER);
  // Planned first: the README names each generated folder and which one holds the runtime.
  const generated = await planGenerated(root, listed);
  const generatedFolders = listed.revisions.map((revision) => {
    const folder = versionFolder(revision);
    return { revision, folder, runtime: generated.some((file) => file.path === `${GENERATED_FOLDER}/${folder}/${RUNTIME_ENTRY}`) };
  });
  const view = {
    packageName: projectPackageName(options.dir),
    transport: options.transport,
    stdio: options.transport !== "http",
    http: options.transport !== "stdio",
    both: options.transport === "both",
    handler: options.handler,
    handlerClass: handlerClassName(options.handler),
    generatorName: generator.name,
    generatorVersion: generator.version,
    generatorSpec: dependencySpecFor(options.pm, dependency.spec),
    vendored: dependency.vendored?.path,
    runtimeName: runtime.name,
    runtimeSpec: dependencySpecFor(options.pm, runtime.spec),
    runtimeVendored: runtime.vendored?.path,
    revisions: listed.revisions,
    revisionList: listed.revisions.join(", "),
    // package.json's description, which the MCP Registry takes at most 100 characters of: a range, not the list.
    revisionRange: listed.revisions.length === 1 ? listed.revisions[0] : `${listed.revisions[0]} to ${listed.revisions.at(-1)}`,
    generatedFolders,
    extensions: Object.entries(listed.extensions).map(([revision, names]) => ({ revision, names })),
    pm: options.pm,
    // The one install script of the project's packages (esbuild's, a check of the binary its
    // platform package brings) is declined: npm and pnpm would each warn about it otherwise.
    pnpm: options.pm === "pnpm",
    redis: options.eventSource === "redis",
    zod: options.schemaLibrary === "zod",
    zodSpec: options.schemaLibrary === "zod" ? zodDependencySpec(root) : undefined,
    oauth: options.auth === "oauth",
    // Yarn 1 refuses to install the suite on Node 20 (a dependency of its dependencies needs
    // Node 22), so a yarn project's conformance test says the suite is not installed.
    conformanceSpec: options.pm === "yarn" ? undefined : devDependencySpec(root, "@modelcontextprotocol/conformance"),
    connect: connectView(projectPackageName(options.dir), { stdio: options.transport !== "http", http: options.transport !== "stdio" }),
    run: options.pm === "npm" ? "npm run" : options.pm,
  };
  const rendered = await renderTemplateTree(join(root, "templates", "project"), view, {
    fileName: options.handler.kebab,
    include: (path) =>
      (view.http || !(path.endsWith("http.ts") || HTTP_ONLY.has(path))) &&
      (view.stdio || !path.endsWith("stdio.ts")) &&
      (view.oauth || !OAUTH_ONLY.has(path)),
  });
  const config = JSON.parse(rendered.find((file) => file.path === ".prettierrc.json")!.content) as Record<string, unknown>;
  // The first handler comes from the same template as `mcp-gen handler`'s; the project
  // templates list it (src/handlers/index.ts, src/events.ts). Templates are kept formatted,
  // and render formatted for any name up to PREFORMATTED_NAME_LENGTH (the handler's for its
  // `tools` kind; a test checks it), which spares loading prettier. Only a longer name can
  // move a line break.
  const handler = await renderHandler(options.handler, parseNotifications(["tools"], PACKAGE_KINDS));
  const templated = [...rendered.filter((file) => isTemplated(file.path)), ...handler, ...(await renderSamples())];
  const formatted = options.handler.pascal.length > PREFORMATTED_NAME_LENGTH ? await formatFiles(options.dir, templated, config) : templated;
  const plain = rendered.filter((file) => !isTemplated(file.path));
  const planned = new Map([...plain, ...formatted, ...generated].map((file) => [file.path, file]));
  await refuseProjectCollisions(root, options.handler, handler[0]!, (path) => planned.get(path)?.content);
  if (options.eventSource === "redis") {
    const changes = await eventSourceChanges(options.dir, "redis", (path) => planned.get(path)!.content);
    for (const file of [...changes.created, ...changes.edited]) planned.set(file.path, file);
  }
  if (options.docker) {
    const docker = await planDockerFiles({ packageName: view.packageName, stdio: view.stdio, http: view.http, packageJson: planned.get("package.json")!.content, apps: false });
    for (const file of docker.files) planned.set(file.path, file);
  }
  for (const { vendored } of [dependency, runtime]) {
    if (vendored !== undefined) planned.set(vendored.path, { path: vendored.path, content: "", bytes: vendored.bytes() });
  }
  return sortedBy(planned.values(), (file) => file.path);
}

/**
 * The sample resources and prompt, from the same templates as `mcp-gen resource` and
 * `mcp-gen prompt` (src/resources/index.ts and src/prompts/index.ts list them by name).
 * Their names are fixed, so they render formatted like the rest.
 */
const SAMPLES: Array<{ kind: PrimitiveKind; name: string; view: (names: NameForms) => PrimitiveView }> = [
  { kind: "resource", name: "About", view: (names) => resourceView(names, {}) },
  { kind: "resource", name: "Greeting", view: (names) => resourceView(names, { template: "app://greetings/{language}" }) },
  { kind: "prompt", name: "WriteGreeting", view: (names) => promptView(names, parsePromptArguments(["name,style?"])) },
];

async function renderSamples(): Promise<PlannedFile[]> {
  const rendered = await Promise.all(
    SAMPLES.map(({ kind, name, view }) => {
      const names = validateName(name, kind);
      return renderPrimitive(kind, names, view(names).view);
    }),
  );
  return rendered.flat();
}

/**
 * Refuses a handler name that collides with the project's own names, as `mcp-gen handler`
 * does. The exact check parses with ts-morph, which takes seconds to load, so it runs only
 * when one of the handler's exported names occurs in the template sources at all (their
 * placeholders unrendered, so a name found there is the templates' own: `AppEvents`,
 * `SubscriptionHandler`); for any other name no collision is possible.
 */
async function refuseProjectCollisions(root: string, names: NameForms, source: PlannedFile, read: ProjectReader): Promise<void> {
  const exported = [...source.content.matchAll(/^export (?:class|interface|type|const|function) ([\w$]+)/gm)].map((match) => match[1]!);
  const templates = ["project", "handler"].flatMap((dir) =>
    listFiles(join(root, "templates", dir)).map((file) => readFileSync(join(root, "templates", dir, file), "utf8")),
  );
  const mentioned = exported.some((name) => templates.some((text) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(text)));
  if (mentioned) await refuseCollisions(names, source, handlerLandings(names, read));
}

/**
 * The generator dependency as `pm` should write it. A `file:` folder (an unbuilt checkout)
 * is a link under npm; pnpm copies it instead (a snapshot that misses later edits of the
 * checkout), so pnpm gets `link:`. Yarn 1 keeps `file:` (a copy): it gives linked packages no
 * bins, and the project's `generate` script runs the `mcp-gen` bin. A tarball is `file:` for all three.
 */
function dependencySpecFor(pm: PackageManager, spec: string): string {
  if (pm !== "pnpm" || !spec.startsWith("file:") || spec.endsWith(".tgz")) return spec;
  return `link:${spec.slice("file:".length)}`;
}

const TEMPLATED = new Set(["package.json", "README.md", "src/server.ts", "src/run.ts", "src/tools/toggle-greet.ts", "src/tools/admin-reset.ts"]);
/** Files only a project serving HTTP has (besides every `*http.ts`). */
const HTTP_ONLY = new Set(["src/fetch.ts", "src/serve/limits.ts", "src/serve/dev-sessions.ts", "src/serve/health.ts"]);
/** Files only a project made with `--auth oauth` has. */
const OAUTH_ONLY = new Set(["src/serve/oauth.ts", "src/tools/admin-reset.ts"]);
function isTemplated(path: string): boolean {
  return TEMPLATED.has(path) || path.startsWith("src/handlers/") || path.startsWith("test/");
}
