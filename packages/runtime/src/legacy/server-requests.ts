/**
 * The requests a legacy session sends its client (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) and the answers it waits for. Only an answer to
 * a request this session sent and is still waiting for is taken; anything else (an id it
 * never used, an answer after the timeout, a second answer) is refused by the caller.
 * Bounded: at most `limit` requests wait at once, each for at most `timeoutMs`; when the
 * wait ends early (timeout, the request that caused it cancelled) the client is told with
 * `notifications/cancelled`, and when the session ends every wait fails.
 */
import { unrefTimer } from "../transports/http-io.js";
import { isObject, type JsonObject, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "../jsonrpc.js";
import type * as Legacy from "./protocol.js";

/** Sent to the client when a wait for its answer ends early. */
const CANCELLED_METHOD = "notifications/cancelled" satisfies Legacy.ServerNotificationMethod;

/** Why waiting for a client's answer failed; the request that asked gets an error naming it. */
export class ClientRequestFailed extends Error {
  constructor(
    message: string,
    /** The client's own JSON-RPC error, when it answered with one. */
    readonly clientError?: { code: number; message: string; data?: unknown },
  ) {
    super(message);
    this.name = "ClientRequestFailed";
  }
}

interface Waiting {
  readonly method: string;
  readonly resolve: (result: JsonObject) => void;
  readonly reject: (error: ClientRequestFailed) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Where a shared session's requests get ids no other replica uses, and how an answer POSTed
 * to another replica comes back here (session-store.ts `nextRequestId`, `awaitAnswer`).
 */
export interface RemoteAnswers {
  nextId(): Promise<number>;
  /** Registers the wait; `listener` gets the answer wherever it arrives. Resolves with how to stop waiting. */
  await(requestId: number, ttlMs: number, listener: (response: JsonRpcResponse) => void): Promise<() => void>;
}

/** Where a request to the client is written: the connection of the request that caused it. */
export interface RequestSink {
  send(message: JsonRpcMessage): void;
}

export class ServerRequests {
  readonly #waiting = new Map<RequestId, Waiting>();
  #nextId = 0;
  #closed: string | undefined;

  constructor(
    readonly limit: number,
    readonly timeoutMs: number,
    /** Set for a session shared by several replicas: ids and answers go through its store. */
    readonly remote?: RemoteAnswers,
  ) {}

  /** Requests sent and not yet answered. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Whether `count` more requests fit under the limit now. */
  fits(count: number): boolean {
    return this.#waiting.size + count <= this.limit;
  }

  /** Sends one request on `sink` and resolves with the client's result; `signal` aborts the wait. */
  ask(sink: RequestSink, method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    if (this.#closed !== undefined) return Promise.reject(new ClientRequestFailed(this.#closed));
    if (signal.aborted) return Promise.reject(new ClientRequestFailed(`${method} was not sent: the request that needed it was cancelled`));
    if (!this.fits(1)) {
      return Promise.reject(new ClientRequestFailed(`${method} was not sent: ${this.limit} requests already wait for this client's answers`));
    }
    if (this.remote !== undefined) return this.#askShared(this.remote, sink, method, params, signal);
    return this.#send(this.#nextId++, sink, method, params, signal);
  }

  /** A shared session's ask: an id from the store and the wait registered there before the request goes out. */
  async #askShared(remote: RemoteAnswers, sink: RequestSink, method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    let id: number;
    let stopRemote: () => void;
    try {
      id = await remote.nextId();
      stopRemote = await remote.await(id, this.timeoutMs, (response) => void this.settle(response));
    } catch (error) {
      throw new ClientRequestFailed(`${method} was not sent: the session store failed (${error instanceof Error ? error.message : String(error)})`);
    }
    try {
      return await this.#send(id, sink, method, params, signal);
    } finally {
      stopRemote();
    }
  }

  #send(id: number, sink: RequestSink, method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    if (this.#closed !== undefined) return Promise.reject(new ClientRequestFailed(this.#closed));
    if (signal.aborted) return Promise.reject(new ClientRequestFailed(`${method} was not sent: the request that needed it was cancelled`));
    return new Promise<JsonObject>((resolve, reject) => {
      const stop = (why: string) => {
        if (this.#forget(id) === undefined) return;
        sink.send({ jsonrpc: "2.0", method: CANCELLED_METHOD, params: { requestId: id, reason: why } });
        reject(new ClientRequestFailed(`${method}: ${why}`));
      };
      const onAbort = () => stop("the request that needed the answer was cancelled");
      const timer = unrefTimer(setTimeout(() => stop(`the client did not answer within ${this.timeoutMs} ms`), this.timeoutMs));
      signal.addEventListener("abort", onAbort, { once: true });
      const settled =
        <T>(finish: (value: T) => void) =>
        (value: T) => {
          signal.removeEventListener("abort", onAbort);
          finish(value);
        };
      this.#waiting.set(id, { method, resolve: settled(resolve), reject: settled(reject), timer });
      sink.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** A response from the client: true when it answered a request still waiting, false for any other id (the caller refuses it). */
  settle(response: JsonRpcResponse): boolean {
    const waiting = response.id === null || response.id === undefined ? undefined : this.#forget(response.id);
    if (waiting === undefined) return false;
    if ("error" in response) {
      const { code, message, data } = response.error;
      waiting.reject(new ClientRequestFailed(`the client answered ${waiting.method} with error ${code}: ${message}`, { code, message, data }));
    } else if (!isObject(response.result)) {
      waiting.reject(new ClientRequestFailed(`the client answered ${waiting.method} without a result object`));
    } else waiting.resolve(response.result);
    return true;
  }

  /** No answer can come any more (the session ended, or the client's input did): every wait fails, later asks too. */
  close(why: string): void {
    this.#closed ??= why;
    for (const id of [...this.#waiting.keys()]) {
      const waiting = this.#forget(id)!;
      waiting.reject(new ClientRequestFailed(`${waiting.method}: ${why}`));
    }
  }

  #forget(id: RequestId): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return undefined;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    return waiting;
  }
}
