/**
 * The `manifest.json` of a project's MCPB bundle (manifest version 0.3, the one the
 * `@anthropic-ai/mcpb` package's `latest` schema is): who the server is, from package.json;
 * how a client starts it (`node` on the built entry point, with `--stdio` when the project
 * serves HTTP too); the tools its built server lists, so the manifest names exactly what a
 * client will be listed; and a `user_config` field for each environment variable its source
 * reads, handed to the server through `mcp_config.env`.
 *
 * Variables only the HTTP server reads (the listening port, proxies, OAuth) are left out:
 * a bundle is started over stdio, where setting them does nothing.
 */
import type { Tool } from "../../../generated/index.js";
import { KNOWN_VARIABLES, variableEntry } from "../server-json/env-catalogue.js";
import { repositoryOf } from "../server-json/identity.js";

export const MANIFEST_VERSION = "0.3";
/** The built server's entry point, relative to the bundle's root (src/main.ts compiled, which loads the bundled server). */
export const ENTRY_POINT = "dist/src/main.js";

export interface BundleFacts {
  /** package.json, as parsed. */
  readonly packageJson: Readonly<Record<string, unknown>>;
  /** Whether src/ also serves HTTP: then the entry point needs --stdio. */
  readonly servesHttp: boolean;
  /** Each variable the source reads, with the files reading it. */
  readonly variables: ReadonlyMap<string, readonly string[]>;
  readonly tools: readonly Pick<Tool, "name" | "description">[];
}

export interface DerivedManifest {
  readonly manifest: Record<string, unknown>;
  /** What the person bundling may want to fix in package.json. */
  readonly notes: string[];
}

export function deriveManifest(facts: BundleFacts): DerivedManifest {
  const fields = facts.packageJson;
  const notes: string[] = [];
  const name = String(fields.name);
  const author = authorOf(fields.author);
  if (author === undefined) notes.push(`package.json has no "author": the manifest names the package ("${name}") as its author`);
  const repository = repositoryOf(fields.repository);
  const engines = fields.engines as { node?: unknown } | undefined;
  const variables = [...facts.variables].filter(([variable]) => KNOWN_VARIABLES[variable]?.httpOnly !== true);
  const shared = facts.variables.has("REDIS_URL");
  return {
    notes,
    manifest: {
      manifest_version: MANIFEST_VERSION,
      name,
      version: String(fields.version),
      description: typeof fields.description === "string" && fields.description !== "" ? fields.description : `The ${name} MCP server`,
      author: author ?? { name },
      ...(repository ? { repository: { type: "git", url: repository.url } } : {}),
      ...(typeof fields.license === "string" ? { license: fields.license } : {}),
      server: {
        type: "node",
        entry_point: ENTRY_POINT,
        mcp_config: {
          command: "node",
          args: [`\${__dirname}/${ENTRY_POINT}`, ...(facts.servesHttp ? ["--stdio"] : [])],
          ...(variables.length > 0 ? { env: Object.fromEntries(variables.map(([variable]) => [variable, `\${user_config.${configKey(variable)}}`])) } : {}),
        },
      },
      tools: facts.tools.map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}) })),
      ...(variables.length > 0 ? { user_config: Object.fromEntries(variables.map(([variable, readBy]) => [configKey(variable), userConfig(variable, readBy, shared)])) } : {}),
      ...(typeof engines?.node === "string" ? { compatibility: { runtimes: { node: engines.node } } } : {}),
    },
  };
}

/** The user_config key a variable is asked under: its name in lower case (MCP_STATE_KEY is mcp_state_key). */
export function configKey(variable: string): string {
  return variable.toLowerCase();
}

/** One user_config field: what server.json says of the variable, in the manifest's words. */
function userConfig(variable: string, readBy: readonly string[], shared: boolean): Record<string, unknown> {
  const entry = variableEntry(variable, readBy, shared) as { description: string; isRequired?: boolean; isSecret?: boolean; default?: string };
  return {
    type: "string",
    title: variable,
    description: entry.description,
    ...(entry.isRequired ? { required: true } : {}),
    ...(entry.isSecret ? { sensitive: true } : {}),
    ...(entry.default !== undefined ? { default: entry.default } : {}),
  };
}

/** package.json's author, either form: "Name <email> (url)" or { name, email, url }. */
function authorOf(value: unknown): { name: string; email?: string; url?: string } | undefined {
  if (typeof value === "string") {
    const match = /^([^<(]*?)\s*(?:<([^>]*)>)?\s*(?:\(([^)]*)\))?\s*$/.exec(value);
    if (!match || match[1] === "") return undefined;
    return { name: match[1]!, ...contact(match[2], match[3]) };
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { name, email, url } = value as Record<string, unknown>;
  if (typeof name !== "string" || name === "") return undefined;
  return { name, ...contact(email, url) };
}

/** The author's email and URL, each only when it is one: the schema checks their formats, and a name alone is enough. */
function contact(email: unknown, url: unknown): { email?: string; url?: string } {
  const isEmail = typeof email === "string" && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email);
  const isUrl = typeof url === "string" && URL.canParse(url);
  return { ...(isEmail ? { email } : {}), ...(isUrl ? { url } : {}) };
}
