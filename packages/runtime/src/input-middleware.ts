/**
 * Middleware around the requests a handler's `input.ask` makes of the client
 * (`server.useInput`), typed from the generated `InputRequest` union and the `InputResultOf`
 * pairing: `elicitation/create`, `sampling/createMessage` and `roots/list`.
 *
 * It runs where the server itself sends such a request: an initialize-era session, where an
 * `input_required` answer becomes one server-to-client request per input request
 * (legacy/input-rounds.ts). There `next()` sends the request, in the client's revision, and
 * resolves with the client's answer. A 2026-07-28 client is sent no request: the input
 * requests travel inside the result of its own request, and the answers in its retry, both of
 * which that method's `server.use` chain sees, so this chain does not run for it.
 *
 * The chain is `middleware.ts`'s, with its rules: registration order is chain order, a step
 * settles once the request that asked is cancelled, `next()` runs once. What a step sees of
 * the request is the asking request's context (its id, meta, signal, progress and log sends).
 */
import { MiddlewareChain } from "./middleware.js";
import type { InputMethod, InputResultOf } from "./input-required.js";
import type { InputRequest } from "./protocol.js";
import type { RequestContext } from "./request-notifications.js";
import type { Awaitable } from "./subscriptions/types.js";

/** The params of one kind of input request, in the newest revision's shape (the session translates them for its client). */
export type InputParams<M extends InputMethod> = NonNullable<Extract<InputRequest, { method: M }>["params"]>;

/** What an input middleware sees: the asking request's context, and the request about to be sent. */
export interface InputMiddlewareContext<M extends InputMethod> extends RequestContext {
  readonly method: M;
  /** What will be sent unless `next` is given other params. */
  readonly params: InputParams<M>;
  /** What the transport vouched for the client that is asked; undefined for an anonymous one. */
  readonly principal: unknown;
}

/** Sends the request (with `params`, those instead) through the rest of the chain, once, and resolves with the client's answer. */
export type InputMiddlewareNext<M extends InputMethod> = (params?: InputParams<M>) => Promise<InputResultOf[M]>;

/** A middleware of one kind of input request: its answer is what the handler's retry gets for it. */
export type InputMiddleware<M extends InputMethod> = (context: InputMiddlewareContext<M>, next: InputMiddlewareNext<M>) => Awaitable<InputResultOf[M]>;

/** A middleware of every kind: generic, so it passes on what `next` gives, or refuses; to answer, narrow with `useInput(method, ...)`. */
export type AnyInputMiddleware = <M extends InputMethod>(context: InputMiddlewareContext<M>, next: InputMiddlewareNext<M>) => Awaitable<InputResultOf[M]>;

/** Written as a record over `InputMethod`: a new kind of input request fails the type check until it is placed here. */
const INPUT_METHODS: Readonly<Record<InputMethod, true>> = { "elicitation/create": true, "sampling/createMessage": true, "roots/list": true };

/** The chain of a server's input middleware: only input request methods may be named. */
export function inputChain(): MiddlewareChain {
  return new MiddlewareChain((method) =>
    Object.hasOwn(INPUT_METHODS, method)
      ? undefined
      : `useInput: ${method} is not a request input.ask sends; name one of ${Object.keys(INPUT_METHODS).join(", ")}`,
  );
}
