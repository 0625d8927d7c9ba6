/**
 * The official clients of each protocol era, as the scaffolded demo meets them: the 1.x SDK
 * client's older releases (aliased devDependencies, one per revision they speak) and today's
 * 1.x and 2.x, each driving the demo with its default options: connect, list tools, call
 * toggle_greet twice (adding greet, then removing it, so a shared server ends as it began)
 * and hear notifications/tools/list_changed after each call.
 */
import assert from "node:assert/strict";
import { EventSource } from "eventsource";
import { Client as Client104 } from "mcp-sdk-1.0.4/client/index.js";
import { SSEClientTransport as Sse104 } from "mcp-sdk-1.0.4/client/sse.js";
import { StdioClientTransport as Stdio104 } from "mcp-sdk-1.0.4/client/stdio.js";
import { LATEST_PROTOCOL_VERSION as latest104, ToolListChangedNotificationSchema as toolsChanged104 } from "mcp-sdk-1.0.4/types.js";
import { Client as Client1102 } from "mcp-sdk-1.10.2/client/index.js";
import { SSEClientTransport as Sse1102 } from "mcp-sdk-1.10.2/client/sse.js";
import { StdioClientTransport as Stdio1102 } from "mcp-sdk-1.10.2/client/stdio.js";
import { StreamableHTTPClientTransport as Http1102 } from "mcp-sdk-1.10.2/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION as latest1102, ToolListChangedNotificationSchema as toolsChanged1102 } from "mcp-sdk-1.10.2/types.js";
import { Client as Client1123 } from "mcp-sdk-1.12.3/client/index.js";
import { SSEClientTransport as Sse1123 } from "mcp-sdk-1.12.3/client/sse.js";
import { StdioClientTransport as Stdio1123 } from "mcp-sdk-1.12.3/client/stdio.js";
import { StreamableHTTPClientTransport as Http1123 } from "mcp-sdk-1.12.3/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION as latest1123, ToolListChangedNotificationSchema as toolsChanged1123 } from "mcp-sdk-1.12.3/types.js";
import { Client as Client1133 } from "mcp-sdk-1.13.3/client/index.js";
import { SSEClientTransport as Sse1133 } from "mcp-sdk-1.13.3/client/sse.js";
import { StdioClientTransport as Stdio1133 } from "mcp-sdk-1.13.3/client/stdio.js";
import { StreamableHTTPClientTransport as Http1133 } from "mcp-sdk-1.13.3/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION as latest1133, ToolListChangedNotificationSchema as toolsChanged1133 } from "mcp-sdk-1.13.3/types.js";
import { Client as ClientNow } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as SseNow } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport as StdioNow } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpNow } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION as latestNow, ToolListChangedNotificationSchema as toolsChangedNow } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { within } from "../../../cli/scaffold/helpers.js";

/**
 * The protocol version each 1.x release sends in `initialize` (its `LATEST_PROTOCOL_VERSION`,
 * dist types.js) and the transports it has. 1.0.4 predates Streamable HTTP (stdio and the
 * HTTP+SSE client only); it arrived in 1.10. Every release keeps the HTTP+SSE client.
 */
export const SDK_RELEASE_VERSIONS = {
  "1.0.4": { initializes: "2024-11-05", http: false },
  "1.10.2": { initializes: "2024-11-05", http: true },
  "1.12.3": { initializes: "2025-03-26", http: true },
  "1.13.3": { initializes: "2025-06-18", http: true },
  "1.x": { initializes: "2025-11-25", http: true },
} as const;

export type SdkRelease = keyof typeof SDK_RELEASE_VERSIONS;

/** What each installed release itself says it sends: the table above must agree. */
export const SDK_LATEST_PROTOCOL_VERSION: Record<SdkRelease, string> = {
  "1.0.4": latest104,
  "1.10.2": latest1102,
  "1.12.3": latest1123,
  "1.13.3": latest1133,
  "1.x": latestNow,
};

/** The part of a 1.x transport the round trip touches (each release has its own types). */
interface AnyTransport {
  onmessage?: (message: any, extra?: any) => void;
  readonly protocolVersion?: string;
}

/** The part of a 1.x `Client` the round trip uses, the same in every release. */
interface SdkClient {
  connect(transport: any): Promise<void>;
  setNotificationHandler(schema: any, handler: () => void): void;
  getServerCapabilities(): { tools?: { listChanged?: boolean } } | undefined;
  getServerVersion(): { name: string; version: string } | undefined;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ content?: unknown }>;
  close(): Promise<void>;
}

interface ReleaseParts {
  client(): SdkClient;
  stdio(command: string, args: string[], cwd: string): AnyTransport;
  http?: (url: URL) => AnyTransport;
  /** The HTTP+SSE client of 2024-11-05 (an event stream, and POSTs to the URL it names). */
  sse(url: URL): AnyTransport;
  toolsChanged: unknown;
}

const info = { name: "era-client", version: "0.0.0" };
const options = { capabilities: {} };
const quiet = "ignore" as const;

const RELEASES: Record<SdkRelease, ReleaseParts> = {
  "1.0.4": {
    client: () => new Client104(info, options) as unknown as SdkClient,
    // 1.0.4 has no `cwd` option: the server is started by its absolute path.
    stdio: (command, args) => new Stdio104({ command, args, stderr: quiet }),
    // Its client opens the stream with the global EventSource, which its Node users installed from the eventsource package.
    sse: (url) => (((globalThis as { EventSource?: unknown }).EventSource ??= EventSource), new Sse104(url)),
    toolsChanged: toolsChanged104,
  },
  "1.10.2": {
    client: () => new Client1102(info, options) as unknown as SdkClient,
    stdio: (command, args, cwd) => new Stdio1102({ command, args, cwd, stderr: quiet }),
    http: (url) => new Http1102(url),
    sse: (url) => new Sse1102(url),
    toolsChanged: toolsChanged1102,
  },
  "1.12.3": {
    client: () => new Client1123(info, options) as unknown as SdkClient,
    stdio: (command, args, cwd) => new Stdio1123({ command, args, cwd, stderr: quiet }),
    http: (url) => new Http1123(url),
    sse: (url) => new Sse1123(url),
    toolsChanged: toolsChanged1123,
  },
  "1.13.3": {
    client: () => new Client1133(info, options) as unknown as SdkClient,
    stdio: (command, args, cwd) => new Stdio1133({ command, args, cwd, stderr: quiet }),
    http: (url) => new Http1133(url),
    sse: (url) => new Sse1133(url),
    toolsChanged: toolsChanged1133,
  },
  "1.x": {
    client: () => new ClientNow(info, options) as unknown as SdkClient,
    stdio: (command, args, cwd) => new StdioNow({ command, args, cwd, stderr: quiet }),
    http: (url) => new HttpNow(url),
    sse: (url) => new SseNow(url),
    toolsChanged: toolsChangedNow,
  },
};

/** What the client sent in `initialize` and what the server answered, seen on the wire. */
export interface Handshake {
  requested?: string;
  answered?: string;
  /** The error the server answered `initialize` with, if it did. */
  error?: { code: number; message: string };
}

/**
 * The same transport, with the `initialize` request and its answer noted as they pass (the
 * client keeps neither: releases before 1.13 expose no negotiated version at all).
 */
function observed<T extends object>(transport: T, handshake: Handshake): T {
  let initializeId: unknown;
  return new Proxy(transport, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === "send" && typeof value === "function") {
        return (message: any, ...rest: unknown[]) => {
          if (message?.method === "initialize") {
            initializeId = message.id;
            handshake.requested = message.params?.protocolVersion;
          }
          return value.call(target, message, ...rest);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, key, value) {
      if (key === "onmessage" && typeof value === "function") {
        const deliver = value as (message: any, ...rest: unknown[]) => void;
        value = (message: any, ...rest: unknown[]) => {
          if (initializeId !== undefined && message?.id === initializeId) {
            handshake.answered = message.result?.protocolVersion;
            handshake.error = message.error;
          }
          deliver(message, ...rest);
        };
      }
      return Reflect.set(target, key, value, target);
    },
  });
}

export interface EraRoundTrip {
  handshake: Handshake;
  /** The server's name as the client keeps it (`getServerVersion()`, every release). */
  serverName: string | undefined;
  /** The transport's `protocolVersion` (1.13 and later over HTTP: what it sends as MCP-Protocol-Version). */
  transportVersion: string | undefined;
  close(): Promise<void>;
}

const WAIT_MS = 15_000;

/** `promise`, or a rejection naming `what` once WAIT_MS have passed. */
function inTime<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function toggledTwice(
  listTools: () => Promise<Array<{ name: string }>>,
  toggle: () => Promise<string | undefined>,
  changes: { next(): Promise<string> },
): Promise<void> {
  const names = async () => (await inTime(listTools(), "tools/list")).map((tool) => tool.name).sort();
  assert.deepEqual(await names(), ["ask_name", "toggle_greet"]);
  for (const [text, tools] of [
    ["greet is now available", ["ask_name", "greet", "toggle_greet"]],
    ["greet was removed", ["ask_name", "toggle_greet"]],
  ] as const) {
    const heard = changes.next();
    assert.equal(await inTime(toggle(), "tools/call toggle_greet"), text);
    assert.equal(await within(heard, WAIT_MS, `no notifications/tools/list_changed within ${WAIT_MS} ms after "${text}"`), "heard");
    assert.deepEqual(await names(), tools);
  }
}

function listChanges(): { next(): Promise<string>; heard(): void } {
  let waiters: Array<(value: string) => void> = [];
  return {
    next: () => new Promise<string>((resolve) => waiters.push(resolve)),
    heard() {
      const woken = waiters;
      waiters = [];
      woken.forEach((wake) => wake("heard"));
    },
  };
}

export type Wire = { kind: "stdio"; command: string; args: string[]; cwd: string } | { kind: "http" | "sse"; url: URL };

/** One 1.x release, default options: connect over `wire`, list, toggle greet twice, hear each list change. */
export async function sdkRoundTrip(release: SdkRelease, wire: Wire): Promise<EraRoundTrip> {
  const parts = RELEASES[release];
  const handshake: Handshake = {};
  let transport: AnyTransport;
  if (wire.kind === "stdio") transport = parts.stdio(wire.command, wire.args, wire.cwd);
  else if (wire.kind === "sse") transport = parts.sse(wire.url);
  else if (parts.http !== undefined) transport = parts.http(wire.url);
  else throw new Error(`the ${release} client has no Streamable HTTP transport`);
  transport = observed(transport, handshake);
  const client = parts.client();
  const changes = listChanges();
  client.setNotificationHandler(parts.toolsChanged, () => changes.heard());
  const close = () => within(client.close(), 5_000, undefined);
  try {
    await inTime(client.connect(transport), "connect").catch((error: Error) => {
      const answer = handshake.error ? `; initialize was answered with error ${handshake.error.code}: ${handshake.error.message}` : "";
      throw new Error(`${release} over ${wire.kind}: connect failed: ${error.message}${answer}`);
    });
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    await toggledTwice(
      async () => (await client.listTools()).tools,
      async () => ((await client.callTool({ name: "toggle_greet", arguments: {} })).content as Array<{ text?: string }> | undefined)?.[0]?.text,
      changes,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { handshake, serverName: client.getServerVersion()?.name, transportVersion: transport.protocolVersion, close };
}

/** Today's 2.x client with its default options (the 2025 `initialize` sequence): the same round trip; resolves with the negotiated version. */
export async function modernDefaultRoundTrip(wire: Wire): Promise<{ negotiated: string | undefined; close(): Promise<void> }> {
  const transport =
    wire.kind === "stdio" ? new ModernStdio({ command: wire.command, args: wire.args, cwd: wire.cwd, stderr: "ignore" }) : new ModernHttp(wire.url);
  const client = new ModernClient(info, { capabilities: {} });
  const changes = listChanges();
  client.setNotificationHandler("notifications/tools/list_changed", () => changes.heard());
  const close = () => within(client.close(), 5_000, undefined);
  try {
    await inTime(client.connect(transport), "connect");
    await toggledTwice(
      async () => (await client.listTools()).tools,
      async () => ((await client.callTool({ name: "toggle_greet", arguments: {} })).content as Array<{ text?: string }> | undefined)?.[0]?.text,
      changes,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { negotiated: client.getNegotiatedProtocolVersion(), close };
}
