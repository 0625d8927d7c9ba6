/**
 * Which era a server speaks, told apart as the server side tells its clients apart:
 * `server/discover` first (2026-07-28: it answers with `supportedVersions`), and when the
 * server does not know it (-32601, -32022 without our version, an HTTP 400/404/405 refusal
 * as the 1.x SDK and FastMCP send: refusal.ts; or an answer without `supportedVersions`)
 * a session opened with `initialize` at the newest initialize-era revision, then
 * `notifications/initialized`.
 * The version `initialize` agrees on must be one this runtime has facts for.
 */
import { McpError } from "../jsonrpc.js";
import { CLIENT_REQUEST_METHODS as LEGACY_METHODS, PROTOCOL_VERSION as LEGACY_PROTOCOL_VERSION } from "../legacy/protocol.js";
import { LEGACY_REVISIONS } from "../legacy/revisions.js";
import {
  ERROR_CODES,
  META_KEYS,
  PROTOCOL_VERSION,
  type ClientRequestMethod,
  type DiscoverResult,
  type Implementation,
  type ServerCapabilities,
} from "../protocol.js";
import { HttpErrorAnswer, HttpStatusError } from "../transports/http-client.js";
import type { McpClient, ServerIdentity } from "./client.js";
import { refusesDiscover } from "./refusal.js";
import type { ToolMap } from "./tools.js";

/** Where a result names its server, in revisions whose schema has that key (a draft may not). */
const SERVER_INFO_KEY: string | undefined = (META_KEYS as Readonly<Record<string, string | undefined>>)["serverInfo"];

/** `auto`: discover, then initialize; or one era only. */
export type EraChoice = "auto" | "2026-07-28" | "initialize";

/** The initialize-era revisions this runtime can speak, newest first. */
export const INITIALIZE_VERSIONS: readonly string[] = LEGACY_REVISIONS.map((revision) => revision.SHAPES_REVISION);

export async function negotiate<Tools extends ToolMap>(client: McpClient<Tools>, choice: EraChoice = "auto"): Promise<ServerIdentity> {
  if (choice !== "initialize") {
    const discovered = await discover(client, choice === "2026-07-28");
    if (discovered !== undefined) {
      client.negotiated(discovered);
      return discovered;
    }
  }
  return initialize(client);
}

/** The 2026-07-28 identity, or undefined when the server does not speak it (an error when `required`). */
async function discover<Tools extends ToolMap>(client: McpClient<Tools>, required: boolean): Promise<ServerIdentity | undefined> {
  let result: Partial<DiscoverResult> | undefined;
  try {
    result = (await retriedOnce(() => client.exchange("server/discover" satisfies ClientRequestMethod, {}))) as Partial<DiscoverResult>;
  } catch (error) {
    if (required || !notSpoken(error)) throw error;
    return undefined;
  }
  if (!Array.isArray(result?.supportedVersions) || !result.supportedVersions.includes(PROTOCOL_VERSION)) {
    if (required) throw new McpError(ERROR_CODES.UnsupportedProtocolVersionError, `the server does not speak ${PROTOCOL_VERSION}`);
    return undefined;
  }
  return {
    era: "2026-07-28",
    protocolVersion: PROTOCOL_VERSION,
    serverInfo: ((SERVER_INFO_KEY === undefined ? undefined : (result._meta as Readonly<Record<string, unknown>> | undefined)?.[SERVER_INFO_KEY]) ?? {
      name: "",
      version: "",
    }) as Implementation,
    capabilities: result.capabilities ?? {},
    ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
  };
}

/**
 * A refusal with -32022 that lists our version among those supported (a server, or an
 * intermediary, rejecting the first choice) is answered by sending the request once more.
 */
async function retriedOnce(send: () => Promise<unknown>): Promise<unknown> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof McpError) || error.code !== ERROR_CODES.UnsupportedProtocolVersionError) throw error;
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    if (!Array.isArray(supported) || !supported.includes(PROTOCOL_VERSION)) throw error;
    return send();
  }
}

/** The refusals that mean "not a 2026-07-28 server" (refusal.ts); anything else (auth, a 5xx, a network failure, a timeout) is passed on. */
function notSpoken(error: unknown): boolean {
  if (error instanceof HttpStatusError) return refusesDiscover({ status: error.status });
  if (!(error instanceof McpError)) return false;
  return refusesDiscover({ status: error instanceof HttpErrorAnswer ? error.status : undefined, error });
}

async function initialize<Tools extends ToolMap>(client: McpClient<Tools>): Promise<ServerIdentity> {
  client.negotiated({ era: "initialize", protocolVersion: LEGACY_PROTOCOL_VERSION, serverInfo: { name: "", version: "" }, capabilities: {} });
  const result = (await client.exchange("initialize", {
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    capabilities: client.capabilities,
    clientInfo: client.clientInfo,
  })) as { protocolVersion?: unknown; serverInfo?: Implementation; capabilities?: ServerCapabilities; instructions?: unknown };
  const version = result.protocolVersion;
  if (typeof version !== "string" || !INITIALIZE_VERSIONS.includes(version)) {
    await client.close();
    throw new McpError(
      ERROR_CODES.UnsupportedProtocolVersionError,
      `the server answered initialize with version ${JSON.stringify(version)}; this client speaks ${[PROTOCOL_VERSION, ...INITIALIZE_VERSIONS].join(", ")}`,
    );
  }
  const identity: ServerIdentity = {
    era: "initialize",
    protocolVersion: version,
    serverInfo: result.serverInfo ?? { name: "", version: "" },
    capabilities: result.capabilities ?? {},
    ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
  };
  (client.transport as { useProtocolVersion?(version: string): void }).useProtocolVersion?.(version);
  client.negotiated(identity, new Set<string>(LEGACY_METHODS));
  await client.notify("notifications/initialized" as never);
  (client.transport as { openSessionStream?(): void }).openSessionStream?.();
  return identity;
}
