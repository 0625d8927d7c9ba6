/**
 * Middleware around the requests handlers answer (`server.use`), typed from the generated
 * `ClientRequests` map. The chain runs where the server dispatches a request to its handler,
 * the one place both eras meet: an older client's request arrives there already in this
 * revision's shape (legacy/translate.ts), and a legacy input round runs the chain again, as
 * a newer client's retry would. A middleware sees the method, its params and the caller, and
 * may answer itself, refuse (throw `McpError`), call `next` with other params, or change what
 * `next` resolved with. Registration order is chain order: the first added runs outermost.
 */
import type { ClientRequestMethod, ClientRequests } from "./protocol.js";
import { McpError, INTERNAL_ERROR, isObject, type RequestId } from "./jsonrpc.js";
import type { LogMessage, ProgressUpdate, RequestContext, RequestSendResult } from "./request-notifications.js";
import type { HandlerResult } from "./server-options.js";
import type { ClientKey } from "./subscriptions/slots.js";
import type { Awaitable } from "./subscriptions/types.js";

/** Listen streams are not single answers: their lifecycle is reported through `onEvent`. */
const LISTEN = "subscriptions/listen" satisfies ClientRequestMethod;
const TOOLS_CALL = "tools/call" satisfies ClientRequestMethod;
/** The message-context key a transport vouches for the caller with (HTTP authentication). */
const PRINCIPAL_KEY = "principal";

/** The methods middleware can wrap: every request a handler (or the runtime's `server/discover`) answers. */
export type MiddlewareMethod = Exclude<ClientRequestMethod, typeof LISTEN>;

/** What a middleware sees of one request: the handler's context plus the method, its params and the caller. */
export interface MiddlewareContext<M extends MiddlewareMethod> extends RequestContext {
  readonly method: M;
  /** The params the next step gets unless `next` is given others (an older client's already in this revision's shape). */
  readonly params: ClientRequests[M]["params"];
  /** What the transport vouched for (HTTP `authenticate`, OAuth's `TokenPrincipal`); undefined for an anonymous caller. */
  readonly principal: unknown;
}

/**
 * What a tools/call whose tool runs as a task (`runAsTask`) answers: the task's creation (the
 * tasks extension's `CreateTaskResult`), not the tool's result, which `tasks/get` delivers.
 * Named here, not taken from the generated types, which hold it only when the revision was
 * generated with the extension.
 */
export interface TaskCreation {
  readonly resultType: "task";
  readonly taskId: string;
}

/** What the rest of a method's chain answers: its handler's result, and for tools/call a task's creation too (check for `content` before rewriting it). */
export type MiddlewareResult<M extends MiddlewareMethod> = HandlerResult<M> | (M extends typeof TOOLS_CALL ? TaskCreation : never);

/** Runs the rest of the chain and the handler, once; with `params`, those replace the request's for what follows. */
export type MiddlewareNext<M extends MiddlewareMethod> = (params?: ClientRequests[M]["params"]) => Promise<MiddlewareResult<M>>;

/** A middleware of one method: its answer must be that method's result (or an input-required answer where the method allows one). */
export type Middleware<M extends MiddlewareMethod> = (context: MiddlewareContext<M>, next: MiddlewareNext<M>) => Awaitable<MiddlewareResult<M>>;

/** A middleware of every method: generic, so it passes on what `next` gives, or refuses; to answer one method, narrow with `use(method, ...)`. */
export type AnyMethodMiddleware = <M extends MiddlewareMethod>(context: MiddlewareContext<M>, next: MiddlewareNext<M>) => Awaitable<MiddlewareResult<M>>;

type Step = (context: MiddlewareContext<MiddlewareMethod>, next: (params?: object) => Promise<object>) => Awaitable<object>;
type Handler = (params: any, context: RequestContext) => Awaitable<object>;

/** The middleware registered on one server, and the chain each method gets (kept until the next `use`). */
export class MiddlewareChain {
  readonly #entries: Array<{ readonly method: string | undefined; readonly step: Step }> = [];
  readonly #chains = new Map<string, readonly Step[]>();

  /** `refusal`: why a method cannot be wrapped by this chain (undefined when it can). */
  constructor(readonly refusal: (method: string) => string | undefined = refuseListen) {}

  get empty(): boolean {
    return this.#entries.length === 0;
  }

  add(method: string | undefined, step: unknown): void {
    if (typeof step !== "function") throw new TypeError("use: the middleware must be a function (context, next) => result");
    const refused = method === undefined ? undefined : this.refusal(method);
    if (refused !== undefined) throw new TypeError(refused);
    this.#entries.push({ method, step: step as Step });
    this.#chains.clear();
  }

  /** The handler's result through every middleware of `method`; settles when the request is cancelled, whatever a step awaits. */
  run(method: string, params: object, context: RequestContext, handler: Handler): Promise<object> {
    const chain = this.#chainOf(method);
    if (chain.length === 0) return Promise.resolve(handler(params, context));
    return new ChainRun(chain, method, context, handler).step(0, params);
  }

  #chainOf(method: string): readonly Step[] {
    let chain = this.#chains.get(method);
    if (chain === undefined) {
      chain = this.#entries.filter((entry) => entry.method === undefined || entry.method === method).map((entry) => entry.step);
      this.#chains.set(method, chain);
    }
    return chain;
  }
}

function refuseListen(method: string): string | undefined {
  return method === LISTEN ? `use: ${LISTEN} opens a stream, not a request middleware can wrap; see onEvent` : undefined;
}

/**
 * One request going through its chain. A step that never calls `next` nor answers would hold
 * its request (and its connection's slot for it) forever: every step races one promise that
 * rejects once the request is cancelled or its connection is gone, so each `next()` settles
 * then, and the connection answers with nothing. Methods and inline arrows only: under a
 * keepNames transform (tsx) a named closure is renamed each time it is made.
 */
class ChainRun {
  #cancelled: Promise<never> | undefined;

  constructor(
    readonly chain: readonly Step[],
    readonly method: string,
    readonly context: RequestContext,
    readonly handler: Handler,
  ) {}

  /** Step `index` with these params (the handler after the last), raced against cancellation; its failure never unhandled. */
  step(index: number, params: object): Promise<object> {
    let work: Promise<object>;
    try {
      work = Promise.resolve(index === this.chain.length ? this.handler(params, this.context) : this.#middleware(index, params));
    } catch (error) {
      work = Promise.reject(error);
    }
    const raced = Promise.race([work, this.#whenCancelled()]);
    // A `next()` whose failure the middleware never reads (it answered without awaiting it) must not end the process.
    raced.catch(ignore);
    return raced;
  }

  #middleware(index: number, params: object): Awaitable<object> {
    let called = false;
    const call = new MiddlewareCall(this.method as MiddlewareMethod, params, this.context);
    return this.chain[index]!(call, (replaced?: object) => {
      if (called) return unread(new TypeError(`middleware of ${this.method} called next() twice`));
      called = true;
      if (replaced !== undefined && !isObject(replaced)) return unread(new TypeError(`middleware of ${this.method} gave next() params that are not an object`));
      return this.step(index + 1, replaced ?? params);
    });
  }

  /** Made once per request, on the first step: the scope's own abort hook, which costs no AbortController. */
  #whenCancelled(): Promise<never> {
    this.#cancelled ??= new Promise<never>((_resolve, reject) => {
      const scope = this.context as RequestContext & Partial<AbortHook>;
      if (scope.aborted === true || (scope.onAbort === undefined && this.context.signal.aborted)) return reject(cancelled(this.method));
      if (scope.onAbort !== undefined) scope.onAbort(() => reject(cancelled(this.method)));
      else this.context.signal.addEventListener("abort", () => reject(cancelled(this.method)), { once: true });
    });
    return this.#cancelled;
  }
}

/** What the scope a connection serves a request in offers (request-notifications.ts `RequestScope`); a context made elsewhere is watched through its signal. */
interface AbortHook {
  readonly aborted: boolean;
  onAbort(listener: () => void): void;
}

function unread(error: Error): Promise<never> {
  const failed = Promise.reject(error);
  failed.catch(ignore);
  return failed;
}
function ignore(): void {}

/** An McpError, so it is not reported as a handler's failure; no client reads it (a cancelled request gets no answer). */
function cancelled(method: string): McpError {
  return new McpError(INTERNAL_ERROR, `${method} was cancelled while its middleware ran`);
}

/** One step's view: the request context it wraps, with this step's params. */
class MiddlewareCall implements MiddlewareContext<MiddlewareMethod> {
  readonly client?: ClientKey;
  readonly #context: RequestContext;

  constructor(
    readonly method: MiddlewareMethod,
    readonly params: any,
    context: RequestContext,
  ) {
    this.#context = context;
    if (context.client !== undefined) this.client = context.client;
  }

  get principal(): unknown {
    return this.#context.meta[PRINCIPAL_KEY];
  }

  get requestId(): RequestId {
    return this.#context.requestId;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.#context.meta;
  }
  get signal(): AbortSignal {
    return this.#context.signal;
  }
  sendProgress(update: ProgressUpdate): RequestSendResult {
    return this.#context.sendProgress(update);
  }
  sendLog(message: LogMessage): RequestSendResult {
    return this.#context.sendLog(message);
  }
  closeSseStream(): boolean {
    return this.#context.closeSseStream();
  }
}
