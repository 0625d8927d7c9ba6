/**
 * The server.json a project is: identity from package.json, an npm package entry (stdio when
 * the project serves stdio, else its HTTP endpoint on localhost), a remote streamable-http
 * entry when it serves HTTP (with the Authorization header when it is an OAuth resource
 * server), and every environment variable its source reads.
 */
import type { ServerIdentity } from "./identity.js";
import { variableEntry } from "./env-catalogue.js";

export const REGISTRY_RELEASE = "2025-12-11";
export const SERVER_SCHEMA_URL = `https://static.modelcontextprotocol.io/schemas/${REGISTRY_RELEASE}/server.schema.json`;
/** The one `_meta` key the official registry accepts; `tool` in it marks a file this command wrote. */
export const PUBLISHER_META = "io.modelcontextprotocol.registry/publisher-provided";
export const OWN_TOOL = "mcp-gen";
/** Where a remote is, until the file says otherwise: the host is a variable the installer fills in. */
export const DEFAULT_REMOTE_URL = "https://{host}/mcp";
const NPM_REGISTRY = "https://registry.npmjs.org";

/** Which transports the project's source serves, told by the functions it calls. */
export interface ServedTransports {
  stdio: boolean;
  http: boolean;
  oauth: boolean;
}

const SERVES_STDIO = ["serveStdio"];
const SERVES_HTTP = ["serveHttpFromEnv", "serveHttp", "toFetchHandler"];
const SERVES_OAUTH = ["oauthFromEnv", "oauthHttpOptions"];

export function servedTransports(called: ReadonlySet<string>): ServedTransports {
  const any = (names: readonly string[]) => names.some((name) => called.has(name));
  return { stdio: any(SERVES_STDIO), http: any(SERVES_HTTP), oauth: any(SERVES_OAUTH) };
}

export interface ProjectFacts {
  identity: ServerIdentity;
  transports: ServedTransports;
  /** Each variable the source reads, with the files reading it. */
  variables: ReadonlyMap<string, readonly string[]>;
  /** The remote's URL: the existing file's, else DEFAULT_REMOTE_URL. */
  remoteUrl: string;
  /** The project's MCPB bundle (`mcp-gen bundle`): where it is downloaded from, and its sha256. */
  bundle?: BundleFacts;
}

export interface BundleFacts {
  url: string;
  sha256: string;
}

export type ServerJson = Record<string, unknown>;

/** The top-level fields this command owns: any other field of an existing file is kept. */
export function ownedFields(facts: ProjectFacts): string[] {
  return ["$schema", "name", "description", "version", ...(facts.identity.repository ? ["repository"] : []), "packages", "remotes", "_meta"];
}

export function deriveServerJson(facts: ProjectFacts): ServerJson {
  const { identity, transports } = facts;
  return {
    $schema: SERVER_SCHEMA_URL,
    name: identity.name,
    description: identity.description,
    version: identity.version,
    ...(identity.repository ? { repository: identity.repository } : {}),
    packages: [npmPackage(facts), ...(facts.bundle ? [mcpbPackage(facts.bundle, identity.version)] : [])],
    ...(transports.http ? { remotes: [remote(facts)] } : {}),
    _meta: { [PUBLISHER_META]: { tool: OWN_TOOL } },
  };
}

function npmPackage(facts: ProjectFacts): ServerJson {
  const { identity, transports, variables } = facts;
  // A project serving both answers stdio when started with --stdio (src/run.ts).
  const stdioArgument = transports.stdio && transports.http ? { packageArguments: [{ type: "positional", value: "--stdio" }] } : {};
  const transport = transports.stdio || !variables.has("PORT") ? { type: "stdio" } : { type: "streamable-http", url: "http://localhost:{PORT}/mcp" };
  const shared = variables.has("REDIS_URL");
  const environmentVariables = [...variables].map(([name, readBy]) => variableEntry(name, readBy, shared));
  return {
    registryType: "npm",
    registryBaseUrl: NPM_REGISTRY,
    identifier: identity.packageName,
    version: identity.version,
    transport,
    ...stdioArgument,
    ...(environmentVariables.length > 0 ? { environmentVariables } : {}),
  };
}

/**
 * The bundle as the registry lists one: the file's URL and its sha256, which the registry
 * requires for MCPB so that a client can check the download before running it. Its
 * environment is asked for by the bundle's own manifest (user_config), so it is not
 * repeated here.
 */
function mcpbPackage(bundle: BundleFacts, version: string): ServerJson {
  return { registryType: "mcpb", identifier: bundle.url, version, fileSha256: bundle.sha256, transport: { type: "stdio" } };
}

function remote(facts: ProjectFacts): ServerJson {
  const names = [...facts.remoteUrl.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const variables = Object.fromEntries(
    names.map((name) => [name, { description: name === "host" ? "Host name (and port) this server is deployed at" : `The URL's ${name}`, isRequired: true }]),
  );
  const authorization = {
    name: "Authorization",
    description: "Bearer access token from the server's OAuth authorization server, issued for its URL",
    isRequired: true,
    isSecret: true,
  };
  return {
    type: "streamable-http",
    url: facts.remoteUrl,
    ...(facts.transports.oauth ? { headers: [authorization] } : {}),
    ...(names.length > 0 ? { variables } : {}),
  };
}
