/**
 * Builds an MCP Apps view into the one self-contained HTML page a host renders: the view's
 * `src/apps/<name>/view.html`, with its `<script type="module" src="./view.js">` replaced by
 * the extension's app-side bridge (the self-contained bundle @modelcontextprotocol/ext-apps
 * publishes) followed by the compiled `view.ts`. A host's iframe loads nothing else, so
 * everything must be inline. Built on first read, then kept.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** The project folder: this module runs as dist/src/apps/page.js. */
const projectRoot = new URL("../../../", import.meta.url);
const SCRIPT_TAG = '<script type="module" src="./view.js"></script>';
const built = new Map<string, string>();

export function buildAppPage(name: string): string {
  const cached = built.get(name);
  if (cached !== undefined) return cached;
  const template = readFileSync(new URL(`src/apps/${name}/view.html`, projectRoot), "utf8");
  if (!template.includes(SCRIPT_TAG)) throw new Error(`src/apps/${name}/view.html lost its ${SCRIPT_TAG}: put it back where the view's script belongs`);
  const view = readFileSync(new URL(`dist/src/apps/${name}/view.js`, projectRoot), "utf8");
  const script = `${bridgeBundle()}\n${view}`;
  const page = template.replace(SCRIPT_TAG, () => `<script type="module">\n${inlineSafe(script)}\n</script>`);
  built.set(name, page);
  return page;
}

let bridge: string | undefined;

/**
 * The package's bundle, its closing `export { local as Name, ... }` turned into
 * `const ExtApps = { Name: local, ... }`: inline scripts cannot import one another, so the
 * view reads the bridge from that binding (view.ts declares it).
 */
function bridgeBundle(): string {
  if (bridge !== undefined) return bridge;
  const path = createRequire(import.meta.url).resolve("@modelcontextprotocol/ext-apps/app-with-deps");
  const source = readFileSync(path, "utf8");
  const clause = /export\s*\{([^}]*)\};?\s*$/.exec(source);
  if (clause === null)
    throw new Error(`${path} does not end with an export list: this @modelcontextprotocol/ext-apps is not the bundle src/apps/page.ts reads`);
  const members = clause[1]!.split(",").map((entry) => {
    const [local, exported = local] = entry.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}: ${local}`;
  });
  bridge = `${source.slice(0, clause.index)}\nconst ExtApps = { ${members.join(", ")} };`;
  return bridge;
}

/** A script inside `<script>` must not contain `</script`; `<\/` means the same in JavaScript strings, templates and comments. */
function inlineSafe(script: string): string {
  return script.replaceAll("</script", "<\\/script");
}
