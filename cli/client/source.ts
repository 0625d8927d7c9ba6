/**
 * Where `mcp-gen client` reads the tools it binds: a running server's `tools/list`
 * (`--from-url`), or the project's own definitions, read from the server the project
 * builds (`createAppServer()` in `dist/src/server.js`, connected in this process), so the
 * binding holds exactly what the server lists. Either way the listing goes through the
 * runtime's client, and tools whose `x-mcp-header` annotations are invalid are left out.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { connectClient, type ClientTarget } from "../../packages/runtime/src/client/index.js";
import type { Tool } from "../../generated/index.js";
import { CliError } from "../errors.js";
import { whyBuildIsStale } from "./build-current.js";

/** The tools to bind and where they came from (for the file's header). */
export interface ToolSource {
  readonly tools: readonly Tool[];
  /** `--from-url <url>` or `the project's src/` */
  readonly origin: string;
}

/** What the project's `createAppServer()` returns, as far as listing its tools needs. */
type ProjectServer = Extract<ClientTarget, { server: unknown }>["server"] & { close?(): Promise<void> };

const CLIENT_INFO = { name: "mcp-gen client", version: "0.1.0" };
const LIST_TIMEOUT_MS = 30_000;

export async function toolsFromUrl(url: string, headers: Readonly<Record<string, string>>): Promise<ToolSource> {
  return { tools: await listTools({ url, headers }, url), origin: `--from-url ${url}` };
}

/**
 * The project's tools as its built server lists them to one caller: anonymous (as over
 * stdio) unless `scopes` are given, then a caller whose token carries those scopes, so a tool
 * whose `visibility` hides it from that caller is not listed. Refused while `dist/` is
 * missing or the build's own record (dist/.tsbuildinfo) says a source changed since.
 */
export async function toolsFromProject(project: string, scopes?: readonly string[]): Promise<ToolSource> {
  const built = join(project, "dist", "src", "server.js");
  const hint = "run `npm run build` in the project first, or pass --from-url for a running server";
  if (!existsSync(built))
    throw new CliError(`${relative(process.cwd(), built) || built} does not exist: the project's tools are read from its built server`, { hint });
  const stale = whyBuildIsStale(project);
  if (stale !== undefined) throw new CliError(`${stale}: the built server may not hold the project's tools`, { hint });
  const module = (await import(pathToFileURL(built).href)) as { createAppServer?: () => ProjectServer };
  if (typeof module.createAppServer !== "function") {
    throw new CliError("dist/src/server.js exports no createAppServer()", {
      hint: "a project made by create-mcp-handler has one in src/server.ts; or pass --from-url",
    });
  }
  const server = module.createAppServer();
  try {
    const principal = scopes === undefined ? undefined : { scopes: [...scopes] };
    const seenBy = scopes === undefined ? "" : `, as a caller with scopes ${scopes.join(" ")} sees them`;
    return { tools: await listTools({ server, principal }, "the project's server"), origin: `the project's tools (src/tools/)${seenBy}` };
  } finally {
    await server.close?.();
  }
}

async function listTools(target: ClientTarget, where: string): Promise<Tool[]> {
  let client;
  try {
    client = await connectClient(target, { clientInfo: CLIENT_INFO, timeoutMs: LIST_TIMEOUT_MS });
  } catch (error) {
    throw new CliError(`could not connect to ${where}: ${describe(error)}`, { hint: "check that the server is running and the URL is its MCP endpoint" });
  }
  try {
    return (await client.listTools()) as Tool[];
  } catch (error) {
    throw new CliError(`tools/list failed on ${where}: ${describe(error)}`);
  } finally {
    await client.close();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === "string" ? `${error.message}: ${cause.code}` : error.message;
}
