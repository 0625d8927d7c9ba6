/**
 * Input-required results (the 2026-07-28 multi-round requests that replace server-to-client
 * elicitation, sampling and roots requests). A tool, prompt or resource reader receives an
 * `InputRound`: the answers the client sent on this retry, the state the server sealed into
 * the previous round (verified), and `ask()` to answer `input_required` with new requests.
 *
 * The state is sealed with HMAC-SHA256 under a server key (`createServer({ stateKey })`, else
 * `MCP_STATE_KEY` from the environment, else a key generated per process: set one when
 * several processes serve the same clients). A seal binds the state to the request it was
 * issued for (method, tool/prompt/URI and arguments), to the principal it was issued to (the
 * transport's, e.g. the OAuth client) and to an expiry, so a tampered state, one replayed on
 * another request or by another principal, or an expired one is refused with -32602. A seal
 * opens once: the server remembers it until it expires (used-states.ts), so a second use is
 * refused too (within one process: replicas sharing a key each remember their own).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { CreateMessageResult, ElicitResult, InputRequest, InputRequests, InputResponse, ListRootsResult } from "./protocol.js";
import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from "./jsonrpc.js";
import { DEFAULT_MAX_USED_STATES, UsedStates } from "./used-states.js";

/** What an input_required answer holds; the runtime sends it as the request's result. */
export interface InputRequiredAnswer {
  resultType: "input_required";
  inputRequests?: InputRequests;
  requestState?: string;
}

/**
 * The result each input request method gets back. The schema lists the requests
 * (`InputRequest`) and the responses (`InputResponse`) as two unions without pairing them,
 * so this one pairing is written here.
 */
export interface InputResultOf {
  "elicitation/create": ElicitResult;
  "sampling/createMessage": CreateMessageResult;
  "roots/list": ListRootsResult;
}
export type InputMethod = InputRequest["method"] & keyof InputResultOf;

export interface InputRound {
  /** The client's answers on this retry, keyed as they were asked; undefined on a first call. */
  readonly responses: Readonly<Record<string, InputResponse | undefined>> | undefined;
  /** The state sealed into the previous round, verified; undefined when the client sent none. */
  readonly state: string | undefined;
  /** The answer to the request asked under `key`, typed by the method it was asked with. */
  response<M extends InputMethod>(key: string, method: M): InputResultOf[M] | undefined;
  /** An input_required answer asking for `requests`; `state` (when given) comes back sealed on the retry. */
  ask(requests: InputRequests, state?: string): InputRequiredAnswer;
}

/** How long a sealed state stays usable; a retry normally follows within seconds. */
export const STATE_TTL_MS = 10 * 60_000;
let processKey: Uint8Array | undefined;

/**
 * This process's own key, made at first use rather than at load: Cloudflare Workers refuse
 * random values while a module loads (outside a request), and would refuse the whole server.
 */
function ownKey(): Uint8Array {
  return (processKey ??= randomBytes(32));
}

export class RequestStateSealer {
  readonly #key: Uint8Array;
  readonly #used: UsedStates;

  /** `maxUsed`: seals remembered as used at once (see used-states.ts). */
  constructor(key: string | Uint8Array | undefined = process.env["MCP_STATE_KEY"], maxUsed = DEFAULT_MAX_USED_STATES) {
    this.#key = key === undefined || key.length === 0 ? ownKey() : typeof key === "string" ? Buffer.from(key) : key;
    this.#used = new UsedStates(maxUsed);
  }

  seal(state: string, binding: string, now = Date.now()): string {
    // The nonce makes every seal distinct, so that single use is per seal even for equal states.
    const body = Buffer.from(JSON.stringify({ s: state, e: now + STATE_TTL_MS, n: randomBytes(9).toString("base64url") })).toString("base64url");
    return `${body}.${this.#mac(body, binding)}`;
  }

  /**
   * The state inside a seal made for this binding, which it uses up; -32602 when altered,
   * made for another request or principal, expired, or used before.
   */
  open(sealed: unknown, binding: string, now = Date.now()): string {
    const [body = "", mac = "", extra] = typeof sealed === "string" ? sealed.split(".") : [];
    const expected = Buffer.from(this.#mac(body, binding));
    const given = Buffer.from(mac);
    if (extra !== undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new McpError(INVALID_PARAMS, "requestState failed its integrity check: send back the requestState of the last input_required result unchanged");
    }
    const { s, e } = JSON.parse(Buffer.from(body, "base64url").toString()) as { s: string; e: number };
    if (now > e) throw new McpError(INVALID_PARAMS, "requestState has expired: call again without inputResponses or requestState");
    const use = this.#used.claim(mac, e, now);
    if (use === "replayed") throw new McpError(INVALID_PARAMS, "requestState has already been used: send the requestState of the last input_required result");
    if (use === "full") throw new McpError(INTERNAL_ERROR, `this server holds ${this.#used.max} used request states, its limit; try again shortly`);
    return s;
  }

  #mac(body: string, binding: string): string {
    return createHmac("sha256", this.#key).update(binding).update("\n").update(body).digest("base64url");
  }
}

/**
 * The request a state is bound to: method, target, arguments (keys sorted, so a client's key
 * order does not matter) and the principal the transport vouched for (`ctx.meta.principal`),
 * by its JSON as per-client limits key it: a state issued to one client does not open for another.
 */
export function bindingOf(method: string, target: string, args: unknown, principal?: unknown): string {
  const value = args ?? {};
  // Arguments decoded from JSON with their keys already in order (the usual case) print the same through JSON.stringify.
  return `${method}\n${target}\n${isSortedJson(value, 0) ? JSON.stringify(value) : stableJson(value)}\n${principalKey(principal)}`;
}

/** Anonymous callers share the empty key, and so do principals that cannot be printed as JSON (a cycle, a bigint): give principals a JSON form. */
function principalKey(principal: unknown): string {
  if (principal === undefined || principal === null) return "";
  try {
    return JSON.stringify(principal) ?? "\u0000unprintable";
  } catch {
    return "\u0000unprintable";
  }
}

/**
 * Whether JSON.stringify prints `value` exactly as stableJson would: only JSON values
 * (no undefined, function, toJSON or class instance, which the two print differently),
 * every object's keys already sorted. Walks without allocating; deep values take the slow path.
 */
function isSortedJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return true;
  if (typeof value !== "object" || depth > 32) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isSortedJson(value[index], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (previous !== undefined && previous > key)) return false;
    if (!isSortedJson((value as Record<string, unknown>)[key], depth + 1)) return false;
    previous = key;
  }
  return true;
}

export function inputRound(sealer: RequestStateSealer, binding: string, params: { inputResponses?: unknown; requestState?: unknown }): InputRound {
  const responses = readResponses(params.inputResponses);
  const state = params.requestState === undefined ? undefined : sealer.open(params.requestState, binding);
  return {
    responses,
    state,
    // Methods, not arrow properties: nothing renamed per call where keepNames is on (tsx); neither reads `this`.
    response(key) {
      return responses?.[key] as never;
    },
    ask(requests, next) {
      if (next === undefined) return { resultType: "input_required", inputRequests: requests };
      return { resultType: "input_required", inputRequests: requests, requestState: sealer.seal(next, binding) };
    },
  };
}

function readResponses(given: unknown): Record<string, InputResponse | undefined> | undefined {
  if (given === undefined) return undefined;
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    throw new McpError(INVALID_PARAMS, "inputResponses must be an object keyed by the input request keys");
  }
  for (const [key, value] of Object.entries(given)) {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new McpError(INVALID_PARAMS, `inputResponses.${key} must be a result object`);
  }
  return given as Record<string, InputResponse>;
}

/** JSON with every object's keys sorted; loops rather than map/join, since it runs on every call of a tool or prompt. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index++) text += (index === 0 ? "" : ",") + stableJson(value[index]);
    return text + "]";
  }
  const keys = Object.keys(value);
  if (!isSorted(keys)) keys.sort(); // a client usually sends keys in order already, and a sort allocates
  let text = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    text += `${index === 0 ? "" : ","}${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`;
  }
  return text + "}";
}

function isSorted(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index++) if (keys[index - 1]! > keys[index]!) return false;
  return true;
}

/** Typed builders for the three kinds of input request. */
export const inputRequest = {
  elicit: (params: Extract<InputRequest, { method: "elicitation/create" }>["params"]): InputRequest => ({ method: "elicitation/create", params }),
  sample: (params: Extract<InputRequest, { method: "sampling/createMessage" }>["params"]): InputRequest => ({ method: "sampling/createMessage", params }),
  listRoots: (): InputRequest => ({ method: "roots/list", params: {} }),
};
