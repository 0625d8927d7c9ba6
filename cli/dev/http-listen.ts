/**
 * One client's `subscriptions/listen` stream as `mcp-gen dev --http` holds it: the client's
 * POST and its SSE response stay open across reloads, while the request is sent again to
 * each new server. The first server's acknowledgement reaches the client; a later server's
 * is kept from it (the client has one), and in its place the client is told the lists it
 * listens to changed, since a reload is a change of code. Every other event passes through.
 *
 * The stream ends for the client when a server answers the listen request (its close), when
 * a server refuses it, when a server cuts it while no reload is under way (as it would
 * without mcp-gen dev), and when the client leaves.
 */
import { once } from "node:events";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { sseFrame } from "../../packages/runtime/src/transports/sse-frames.js";
import { sseMessages } from "../../packages/runtime/src/transports/sse-messages.js";
import { ACK_METHOD, isObject, LIST_KINDS, SUBSCRIPTION_ID_KEY, type JsonObject } from "./session-memory.js";

const KEEP_ALIVE_FRAME = ": keep-alive\n\n";

/** Largest SSE event read from a server, as the runtime's own client reads one. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Request headers a proxy must not pass on: they describe one connection, or the body it re-encodes. */
const HOP_HEADERS = new Set(["host", "connection", "keep-alive", "content-length", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);

export class CarriedListen {
  /** What the first server honored; undefined until its acknowledgement. */
  #honored: JsonObject | undefined;
  #upstream: AbortController | undefined;
  #ended = false;
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #headers: Record<string, string>;
  /** The JSON of the request id: the subscription id its events carry. */
  readonly #idJson: string | undefined;

  constructor(
    readonly body: string,
    headers: IncomingHttpHeaders,
    readonly client: ServerResponse,
    readonly onEnd: (listen: CarriedListen) => void,
    /**
     * How often the client's stream gets a keep-alive comment, as the runtime's own streams
     * do: the server's comments are not relayed (only its messages are), and a stream silent
     * for minutes is cut by fetch clients and proxies.
     */
    readonly keepAliveMs: number,
  ) {
    this.#headers = passedHeaders(headers);
    this.#idJson = requestIdJson(body);
    client.once("close", () => this.#end());
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Whether a server carries the stream now. */
  get open(): boolean {
    return this.#upstream !== undefined;
  }

  /** Stops reading the current server's stream (it is being replaced): nothing more of it reaches the client. */
  detach(): void {
    this.#upstream?.abort();
    this.#upstream = undefined;
  }

  /**
   * Sends the request to the server at `url` and relays its stream until it ends. Resolves
   * true when the stream was cut without its end (the server went away, or was detached):
   * the caller opens it on the next server, or ends it.
   */
  async openOn(url: URL): Promise<boolean> {
    if (this.#ended) return false;
    const upstream = new AbortController();
    this.#upstream = upstream;
    try {
      const response = await fetch(url, { method: "POST", headers: this.#headers, body: this.body, signal: upstream.signal });
      if (!(await this.#begin(response))) return false;
      for await (const json of sseMessages(response.body!, MAX_EVENT_CHARS)) {
        if (!(await this.#relay(json))) return false;
      }
    } catch {
      // cut: the server went away, or was detached
    } finally {
      if (this.#upstream === upstream) this.#upstream = undefined;
    }
    return !this.#ended;
  }

  /** The server's response head; false when it is not a stream (a refusal), which ends the client's. */
  async #begin(response: Response): Promise<boolean> {
    const isStream = response.ok && (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (!this.client.headersSent) {
      this.client.writeHead(response.status, responseHeaders(response.headers));
      if (isStream) {
        this.#keepAlive = setInterval(() => this.client.write(KEEP_ALIVE_FRAME), this.keepAliveMs);
        this.#keepAlive.unref();
        return true;
      }
      this.client.end(await response.text());
      this.#end();
      return false;
    }
    if (isStream) return true;
    // A new server refused the stream the first one took: its error, when JSON-RPC, is the stream's last event.
    const text = await response.text();
    if (/^\s*\{/.test(text)) await this.#write(text.trim());
    this.client.end();
    this.#end();
    return false;
  }

  /** One event of the server's stream; false once the stream is over. */
  async #relay(json: string): Promise<boolean> {
    const message = parse(json);
    if (message?.["method"] === ACK_METHOD && this.#ownSubscription(message)) {
      if (this.#honored !== undefined) return this.#write(...this.#listChanged());
      const params = message["params"];
      this.#honored = isObject(params) && isObject(params["notifications"]) ? params["notifications"] : {};
    }
    const answered = message !== undefined && !("method" in message) && JSON.stringify(message["id"]) === this.#idJson;
    const written = await this.#write(json);
    if (!answered) return written;
    this.client.end();
    this.#end();
    return false;
  }

  #ownSubscription(ack: JsonObject): boolean {
    const params = ack["params"];
    const meta = isObject(params) ? params["_meta"] : undefined;
    return isObject(meta) && JSON.stringify(meta[SUBSCRIPTION_ID_KEY]) === this.#idJson;
  }

  /** A list-changed notification for each kind the stream listens to, stamped with its subscription id. */
  #listChanged(): string[] {
    const subscriptionId: unknown = JSON.parse(this.#idJson!);
    return LIST_KINDS.filter((kind) => this.#honored?.[kind.filterKey] === true).map((kind) =>
      JSON.stringify({ jsonrpc: "2.0", method: kind.method, params: { _meta: { [SUBSCRIPTION_ID_KEY]: subscriptionId } } }),
    );
  }

  /** Writes events to the client, waiting while it reads slower than they come; false once it left. */
  async #write(...messages: string[]): Promise<boolean> {
    for (const json of messages) {
      if (this.#ended) return false;
      if (!this.client.write(sseFrame(json))) {
        await Promise.race([once(this.client, "drain"), once(this.client, "close")]);
      }
    }
    return !this.#ended;
  }

  /** Ends the client's stream (a server cut it outside a reload, as it would without mcp-gen dev). */
  end(): void {
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#keepAlive);
    this.detach();
    if (!this.client.writableEnded) this.client.end();
    this.onEnd(this);
  }
}

/** The client's request headers a server gets again: all but those of the one connection. */
export function passedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    passed[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return passed;
}

function responseHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && name !== "content-encoding") kept[name] = value;
  });
  return kept;
}

function requestIdJson(body: string): string | undefined {
  const id = parse(body)?.["id"];
  return typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;
}

function parse(json: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
