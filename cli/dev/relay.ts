/**
 * The JSON-RPC relay of `mcp-gen dev`: one client on one side, a succession of server
 * processes on the other. Lines pass through unchanged; each is read only to keep what a
 * replacement needs (see session-memory.ts) and what is in flight.
 *
 * A server being replaced is detached first: its lines are ignored from then on, and each
 * client request it had not answered gets an error naming the reload (a listen stream is
 * not answered: it is opened again on the next server). Until the next server is attached
 * and has been given the session again, the client's messages wait in a bounded queue.
 * Then the client is told its lists changed. A server that exited on its own leaves the
 * relay down: requests are answered with an error until a build starts a new one.
 *
 * Everything is bounded: requests in flight, the queue, and the wait for a replayed
 * `initialize`'s answer.
 */
import { ACK_METHOD, isObject, isRequestId, LISTEN_METHOD, SessionMemory, SUBSCRIPTION_ID_KEY, type JsonObject } from "./session-memory.js";

/** One server process as the relay writes to it. */
export interface ChildLink {
  send(line: string): void;
}

export interface RelayOutput {
  /** Writes one JSON-RPC line to the client (stdout). */
  toClient(line: string): void;
  /** Tells the person running it (stderr). */
  log(message: string): void;
}

export interface RelayLimits {
  /** Client requests a server may hold unanswered (listen streams among them); more are refused at once. Also bounds the server's requests awaiting the client. */
  maxInFlight: number;
  /** Client messages held while no server takes them (starting, reloading). */
  maxQueued: number;
  /** How long a new server has to answer the replayed `initialize`. */
  replayTimeoutMs: number;
}

export const DEFAULT_RELAY_LIMITS: RelayLimits = { maxInFlight: 1024, maxQueued: 1024, replayTimeoutMs: 10_000 };

/** Ids of the relay's own requests: a client's own ids are numbers or its own strings. */
const OWN_ID_PREFIX = "mcp-gen-dev/";
const INTERNAL_ERROR = -32603;

type Phase = "waiting" | "replaying" | "live" | "down";

interface InFlight {
  method: string;
  params: unknown;
}

export class DevRelay {
  readonly memory = new SessionMemory();
  #phase: Phase = "waiting";
  #child: ChildLink | undefined;
  #downReason = "";
  #queue: string[] = [];
  /** Client requests the current server has not answered, by the JSON of their id. */
  #inFlight = new Map<string, InFlight>();
  /** Requests the current server sent the client, by the JSON of their id. */
  #serverRequests = new Set<string>();
  /** The relay's own requests to the current server, awaiting their answer. */
  #ownRequests = new Map<string, (message: JsonObject) => void>();
  #ownCount = 0;

  constructor(
    readonly output: RelayOutput,
    readonly limits: RelayLimits = DEFAULT_RELAY_LIMITS,
  ) {}

  get phase(): Phase {
    return this.#phase;
  }

  /** One line the client wrote. */
  fromClient(line: string): void {
    if (this.#phase === "waiting" || this.#phase === "replaying") return this.#hold(line);
    const message = parse(line);
    if (message === undefined) return this.output.log("mcp-gen dev: dropped a client line that is not a JSON-RPC object");
    if (this.#phase === "down") return this.#whileDown(message, line);
    this.#forward(message, line);
  }

  /** One line a server wrote; lines of a server no longer attached are ignored. */
  fromChild(child: ChildLink, line: string): void {
    if (child !== this.#child || this.#phase === "down" || this.#phase === "waiting") return;
    const message = parse(line);
    // stdout is the protocol: what a server prints there by mistake is shown, never relayed.
    if (message === undefined) return this.output.log(`mcp-gen dev: the server wrote a non-JSON-RPC line to stdout (kept off the wire): ${line.slice(0, 200)}`);
    if ("method" in message) return this.#fromChildMessage(message, line);
    const idJson = JSON.stringify(message["id"]);
    const own = this.#ownRequests.get(idJson);
    if (own !== undefined) {
      this.#ownRequests.delete(idJson);
      return own(message);
    }
    const request = this.#inFlight.get(idJson);
    if (request !== undefined) this.#answered(request, idJson, message);
    this.output.toClient(line);
  }

  /** A new server takes the client: it is given the session again, then the queue. */
  attach(child: ChildLink): void {
    this.#child = child;
    this.#phase = "replaying";
    void this.#replay(child);
  }

  /**
   * The current server is gone or being replaced: its unanswered requests get an error.
   * `reloading` keeps client messages queued for the next server; otherwise the relay is
   * down until one is attached.
   */
  detach(why: string, reloading: boolean): void {
    if (this.#child === undefined) return;
    this.#child = undefined;
    for (const [idJson, request] of this.#inFlight) {
      if (request.method === LISTEN_METHOD) continue; // opened again on the next server
      this.output.toClient(errorLine(idJson, `${why} while this ${request.method} request was in flight; send it again`));
    }
    this.#inFlight.clear();
    this.#serverRequests.clear();
    for (const answer of this.#ownRequests.values()) answer({});
    this.#ownRequests.clear();
    this.#phase = reloading ? "waiting" : "down";
    this.#downReason = why;
    if (!reloading) this.#refuseQueue();
  }

  async #replay(child: ChildLink): Promise<void> {
    const memory = this.memory;
    if (memory.initializeParams !== undefined) {
      const answer = await this.#ask(child, "initialize", memory.initializeParams);
      if (child !== this.#child) return;
      if (!isObject(answer["result"])) this.output.log(`mcp-gen dev: the new server did not accept the session's initialize: ${JSON.stringify(answer["error"] ?? "no answer")}`);
      if (memory.initialized) child.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      for (const { method, params } of memory.stateRequests()) void this.#ask(child, method, params);
    }
    for (const [idJson, stream] of memory.listens) {
      this.#inFlight.set(idJson, { method: LISTEN_METHOD, params: undefined });
      child.send(stream.line);
    }
    this.#phase = "live";
    const queued = this.#queue;
    this.#queue = [];
    for (const line of queued) this.fromClient(line);
    for (const notification of memory.listChangedNotifications()) this.output.toClient(JSON.stringify(notification));
  }

  /** Sends the relay's own request; resolves with the answer, or `{}` when none came in time. */
  #ask(child: ChildLink, method: string, params: unknown): Promise<JsonObject> {
    const id = `${OWN_ID_PREFIX}${++this.#ownCount}`;
    const idJson = JSON.stringify(id);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.#ownRequests.delete(idJson)) resolve({});
      }, this.limits.replayTimeoutMs);
      timer.unref();
      this.#ownRequests.set(idJson, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  #hold(line: string): void {
    if (this.#queue.length < this.limits.maxQueued) {
      this.#queue.push(line);
      return;
    }
    const message = parse(line);
    if (message !== undefined && "method" in message && isRequestId(message["id"])) {
      return this.output.toClient(errorLine(JSON.stringify(message["id"]), "the server is restarting (mcp-gen dev) and too many messages wait for it"));
    }
    this.output.log("mcp-gen dev: dropped a client message: too many wait for the server to restart");
  }

  #refuseQueue(): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const line of queued) this.fromClient(line);
  }

  #whileDown(message: JsonObject, line: string): void {
    const id = message["id"];
    if (typeof message["method"] !== "string" || !isRequestId(id)) return;
    // A listen stream is opened once a server runs again; anything else cannot wait for a build.
    if (message["method"] === LISTEN_METHOD && this.memory.listens.size < this.limits.maxInFlight) {
      this.memory.listens.set(JSON.stringify(id), { line, honored: undefined });
      return;
    }
    this.output.toClient(errorLine(JSON.stringify(id), `${this.#downReason}; mcp-gen dev starts it again after the next successful build`));
  }

  /** A client message for the live server. */
  #forward(message: JsonObject, line: string): void {
    const method = message["method"];
    const id = message["id"];
    if (typeof method !== "string") return this.#clientAnswer(id, line);
    if (isRequestId(id)) {
      const idJson = JSON.stringify(id);
      if (this.#inFlight.size >= this.limits.maxInFlight) {
        return this.output.toClient(errorLine(idJson, `too many requests in flight (mcp-gen dev holds at most ${this.limits.maxInFlight})`));
      }
      this.#inFlight.set(idJson, { method, params: message["params"] });
      if (method === "initialize" && isObject(message["params"])) this.memory.initializeParams = message["params"];
      if (method === LISTEN_METHOD) this.memory.listens.set(idJson, { line, honored: undefined });
    } else if (method === "notifications/initialized") {
      this.memory.initialized = true;
    } else if (method === "notifications/cancelled" && isObject(message["params"])) {
      this.memory.listens.delete(JSON.stringify(message["params"]["requestId"]));
    }
    this.#child!.send(line);
  }

  /** The client's answer to a server request: only the server that asked may have it. */
  #clientAnswer(id: unknown, line: string): void {
    const idJson = JSON.stringify(id);
    if (!this.#serverRequests.delete(idJson)) return this.output.log(`mcp-gen dev: dropped the client's answer to ${idJson}: the server that asked was reloaded`);
    this.#child!.send(line);
  }

  #answered(request: InFlight, idJson: string, response: JsonObject): void {
    this.#inFlight.delete(idJson);
    const result = response["result"];
    if (request.method === LISTEN_METHOD) this.memory.listens.delete(idJson); // the stream ended
    if (!isObject(result)) return;
    if (request.method === "initialize" && isObject(result["capabilities"])) this.memory.serverCapabilities = result["capabilities"];
    this.memory.accepted(request.method, request.params);
  }

  #fromChildMessage(message: JsonObject, line: string): void {
    if (isRequestId(message["id"])) this.#serverAsked(JSON.stringify(message["id"]));
    else if (message["method"] === ACK_METHOD && !this.#firstAck(message)) return;
    this.output.toClient(line);
  }

  /** A request the server sent the client; a server that never hears back cannot grow the set past the bound. */
  #serverAsked(idJson: string): void {
    if (this.#serverRequests.size >= this.limits.maxInFlight) this.#serverRequests.delete(this.#serverRequests.values().next().value!);
    this.#serverRequests.add(idJson);
  }

  /** Records a listen stream's acknowledgement; false for a replayed stream's, which the client already has. */
  #firstAck(message: JsonObject): boolean {
    const params = message["params"];
    const meta = isObject(params) ? params["_meta"] : undefined;
    const stream = isObject(meta) ? this.memory.listens.get(JSON.stringify(meta[SUBSCRIPTION_ID_KEY])) : undefined;
    if (stream === undefined) return true;
    if (stream.honored !== undefined) return false;
    stream.honored = isObject(params) && isObject(params["notifications"]) ? params["notifications"] : {};
    return true;
  }
}

function parse(line: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function errorLine(idJson: string, message: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify({ code: INTERNAL_ERROR, message })}}`;
}
