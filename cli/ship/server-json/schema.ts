/**
 * The registry's server.json schema, pinned like the protocol schemas: schemas/lock.json's
 * "registry" entry names its URL and sha256. It is read from
 * `$MCP_REGISTRY_SCHEMA_DIR/server.schema.json` when that is set, else downloaded from the
 * pinned URL (download.ts' bounds and address rules); either way its bytes must have the
 * pinned sha256. It is checked with Ajv (the scaffold depends on it), formats on: through
 * ajv-formats where the project or mcp-gen can load it, else with this file's `uri` check,
 * the one format the schema uses.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CliError } from "../../errors.js";
import { loadSchema } from "../../generate/load.js";
import { lockPath } from "../../generate/paths.js";
import { REGISTRY_RELEASE } from "./derive.js";
import type { RuleProblem } from "./rules.js";

export const REGISTRY_SCHEMA_FILE = "server.schema.json";

interface RegistryPin {
  url: string;
  sha256: string;
}

function registryPin(): RegistryPin {
  const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { registry?: Record<string, RegistryPin> };
  const pin = lock.registry?.[REGISTRY_RELEASE];
  if (!pin) throw new Error(`schemas/lock.json pins no registry schema ${REGISTRY_RELEASE}`);
  return pin;
}

/** The pinned registry schema, from $MCP_REGISTRY_SCHEMA_DIR or its URL, its sha256 checked. */
export async function loadRegistrySchema(env = process.env): Promise<Record<string, unknown>> {
  const pin = registryPin();
  const dir = env.MCP_REGISTRY_SCHEMA_DIR;
  const location = dir ? join(dir, REGISTRY_SCHEMA_FILE) : pin.url;
  const hint = dir
    ? `put the registry's ${REGISTRY_RELEASE} ${REGISTRY_SCHEMA_FILE} (sha256 ${pin.sha256}) there, or unset MCP_REGISTRY_SCHEMA_DIR to download it`
    : `set MCP_REGISTRY_SCHEMA_DIR to a folder holding the registry's ${REGISTRY_RELEASE} ${REGISTRY_SCHEMA_FILE}, or check the network`;
  let loaded;
  try {
    loaded = await loadSchema(location);
  } catch (error) {
    if (error instanceof CliError) throw new CliError(error.message, { hint });
    throw error;
  }
  if (loaded.sha256 !== pin.sha256) {
    throw new CliError(`${location} is not the pinned registry schema ${REGISTRY_RELEASE}: sha256 ${loaded.sha256}, pinned ${pin.sha256}`, { hint });
  }
  return loaded.json;
}

type Validate = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string; keyword: string }> | null };
interface AjvInstance {
  compile(schema: object): Validate;
  addFormat(name: string, check: (value: string) => boolean): unknown;
}

/** Every place the document breaks the schema, each naming its field. */
export async function schemaProblems(document: unknown, schema: Record<string, unknown>, projectDir: string): Promise<RuleProblem[]> {
  const ajv = await makeAjv(projectDir);
  const validate = ajv.compile(schema);
  if (validate(document)) return [];
  const problems = (validate.errors ?? []).map((error) => ({ field: fieldOf(error.instancePath), problem: `${error.message ?? error.keyword} (schema)` }));
  // anyOf reports each branch; one line per field and message is enough.
  return problems.filter((problem, index) => problems.findIndex((other) => other.field === problem.field && other.problem === problem.problem) === index);
}

/** `/packages/0/version` as `packages[0].version`; the root as `(the document)`. */
export function fieldOf(pointer: string): string {
  if (pointer === "") return "(the document)";
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === "" ? part : `${path}.${part}`), "");
}

async function makeAjv(projectDir: string): Promise<AjvInstance> {
  const Ajv = await loadModule<new (options: object) => AjvInstance>("ajv", projectDir);
  if (!Ajv) {
    throw new CliError("checking server.json needs ajv, which neither the project nor mcp-gen can load", {
      hint: "install it in the project: npm install ajv (a scaffold depends on it)",
    });
  }
  // strict off: the registry's schema uses OpenAPI's `example`, which is no JSON Schema keyword.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const addFormats = await loadModule<(ajv: AjvInstance) => void>("ajv-formats", projectDir);
  if (addFormats) addFormats(ajv);
  else ajv.addFormat("uri", isUri);
  return ajv;
}

/** An absolute URI: a scheme, then no whitespace, and something WHATWG URL parsing accepts. */
export function isUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\S*$/i.test(value) && URL.canParse(value);
}

/** A CommonJS package's export, resolved from the project first (its own dependencies), then from mcp-gen. */
async function loadModule<T>(name: string, projectDir: string): Promise<T | undefined> {
  for (const base of [join(projectDir, "package.json"), import.meta.url]) {
    let path: string;
    try {
      path = createRequire(base).resolve(name);
    } catch {
      continue;
    }
    const module = (await import(pathToFileURL(path).href)) as { default: T & { default?: T } };
    return module.default.default ?? module.default;
  }
  return undefined;
}
