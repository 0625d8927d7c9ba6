/**
 * Opening a client on one of the runtime's own transports: Streamable HTTP
 * (`HttpClientTransport`), a spawned stdio server (`StdioClientTransport`), or a server in
 * the same process (`createInProcessTransportPair`), then negotiating the era.
 */
import type { Transport } from "../transport.js";
import { HttpClientTransport } from "../transports/http-client.js";
import { createInProcessTransportPair } from "../transports/memory.js";
import { StdioClientTransport, type StdioClientOptions } from "../transports/stdio.js";
import { McpClient, type ClientOptions } from "./client.js";
import { negotiate, type EraChoice } from "./negotiate.js";
import { listBounds } from "./pages.js";
import type { ToolMap } from "./tools.js";

/** A Streamable HTTP endpoint. */
export interface HttpTarget {
  readonly url: string | URL;
  /** Extra headers on every request (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The largest answer or SSE event accepted; default 16 MiB. */
  readonly maxMessageBytes?: number;
  /** Redirects in a row followed within the URL's origin; default 5. One to another origin is never followed. */
  readonly maxRedirects?: number;
  readonly fetch?: typeof fetch;
}

/** A stdio server this client spawns (and stops on `close`). */
export type StdioTarget = StdioClientOptions;

/** A server in this process, such as a project's `createAppServer()`. */
export interface InProcessTarget {
  readonly server: { connect(transport: Transport): Promise<void> };
  /**
   * Who the server sees calling, as an authenticating transport would vouch for it (OAuth's
   * token principal, or `{ scopes: [...] }`): its lists then hold what that caller may see
   * (`visibility`). Undefined: an anonymous caller, as over stdio.
   */
  readonly principal?: unknown;
}

export type ClientTarget = HttpTarget | StdioTarget | InProcessTarget;

export interface ConnectOptions<Tools extends ToolMap = {}> extends ClientOptions<Tools> {
  /** `auto` (default): `server/discover`, else `initialize`; or insist on one era. */
  readonly era?: EraChoice;
}

/** Opens a client on `target` and negotiates; rejects (with the transport closed) when the server cannot be spoken to. */
export async function connectClient<Tools extends ToolMap = {}>(target: ClientTarget, options: ConnectOptions<Tools> = {}): Promise<McpClient<Tools>> {
  listBounds(options); // a wrong bound throws before anything is opened
  const transport = await openTransport(target);
  const client = new McpClient<Tools>(transport, options);
  if (transport instanceof HttpClientTransport) {
    client.directory.mirrors = true;
    transport.messageHeaders = (message) => client.directory.headersFor(message);
  }
  try {
    await negotiate(client, options.era);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

async function openTransport(target: ClientTarget): Promise<Transport> {
  if ("url" in target) {
    const { url, ...options } = target;
    const transport = new HttpClientTransport(url, options);
    await transport.connect();
    return transport;
  }
  if ("server" in target) {
    const pair = createInProcessTransportPair(target.principal === undefined ? {} : { serverContext: { principal: target.principal } });
    await target.server.connect(pair.server);
    await pair.client.connect();
    return pair.client;
  }
  const transport = new StdioClientTransport(target);
  await transport.connect();
  return transport;
}
