/**
 * Peers speaking the legacy protocol (2025-11-25) for runtime tests: over an in-memory
 * pair (plain params, no per-request `_meta`), and over Streamable HTTP with a session id,
 * reading a POST's SSE answer frame by frame. Waits are bounded, never timed assertions.
 */
import { type Server } from "../../packages/runtime/src/index.js";
import { createTestTransportPair } from "../../packages/runtime/src/transports/index.js";
import type { HttpServerHandle } from "../../packages/runtime/src/transports/http-server.js";
import { Peer } from "./runtime-peer.js";

export const LEGACY = "2025-11-25";
export const LEGACY_INITIALIZE = { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "legacy-test", version: "1" } };

/** A peer speaking the legacy protocol: plain params, no per-request `_meta`. */
export class LegacyPeer extends Peer {
  #id = 1;
  static async open(server: Server): Promise<LegacyPeer> {
    const pair = createTestTransportPair();
    await server.connect(pair.server);
    const peer = new LegacyPeer(pair.client);
    await pair.client.connect();
    return peer;
  }
  call(method: string, params: Record<string, unknown> = {}) {
    return this.response(this.start(method, params));
  }
  /** Sends a request without waiting; returns its id. */
  start(method: string, params: Record<string, unknown> = {}): string {
    const id = `legacy-${this.#id++}`;
    void this.transport.sendMessage({ jsonrpc: "2.0", id, method, params });
    return id;
  }
  /** Answers a request the server sent. */
  reply(id: unknown, result: Record<string, unknown>): void {
    void this.transport.sendMessage({ jsonrpc: "2.0", id: id as string, result });
  }
  async initialize(params: Record<string, unknown> = LEGACY_INITIALIZE) {
    const response = await this.call("initialize", params);
    this.notify("notifications/initialized", {});
    return response;
  }
}

const ACCEPT = "application/json, text/event-stream";
const WAIT_LIMIT_MS = 10_000;

export function postLegacy(handle: HttpServerHandle, body: unknown, sessionId?: string, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: ACCEPT };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return fetch(handle.url, { method: "POST", headers, body: JSON.stringify(body), signal });
}

/** Opens a legacy HTTP session declaring `capabilities`; returns its id. */
export async function openLegacySession(handle: HttpServerHandle, capabilities: Record<string, unknown> = {}): Promise<string> {
  const response = await postLegacy(handle, { jsonrpc: "2.0", id: 0, method: "initialize", params: { ...LEGACY_INITIALIZE, capabilities } });
  const id = response.headers.get("mcp-session-id");
  if (response.status !== 200 || id === null) throw new Error(`initialize failed: ${response.status} ${await response.text()}`);
  await response.json();
  await (await postLegacy(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).text();
  return id;
}

type Frame = Record<string, any>;

/** The JSON messages of one SSE (or JSON) response, read as they arrive. */
export class SseMessages {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  readonly received: Frame[] = [];
  ended = false;

  constructor(readonly response: Response) {
    this.#reader = response.body?.getReader();
  }

  /** The next message matching `match`, reading more of the stream as needed; undefined once the stream ended without one. */
  async next(match: (frame: Frame) => boolean = () => true): Promise<Frame | undefined> {
    const giveUpAt = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const found = this.received.find((frame) => match(frame) && !(frame as { taken?: true }).taken);
      if (found !== undefined) return Object.defineProperty(found, "taken", { value: true, enumerable: false });
      if (this.ended) return undefined;
      if (Date.now() > giveUpAt) throw new Error(`no matching message in ${JSON.stringify(this.received)}`);
      await this.#read();
    }
  }

  async #read(): Promise<void> {
    const chunk = await this.#reader?.read();
    if (chunk === undefined || chunk.done) {
      this.ended = true;
      this.#take(true);
      return;
    }
    this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    this.#take(false);
  }

  #take(final: boolean): void {
    if (!(this.response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      if (final && this.#buffer.trim() !== "") this.received.push(JSON.parse(this.#buffer));
      return;
    }
    let end: number;
    while ((end = this.#buffer.indexOf("\n\n")) >= 0) {
      const event = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data !== "") this.received.push(JSON.parse(data));
    }
  }
}
