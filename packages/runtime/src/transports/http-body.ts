/**
 * What an HTTP request's body is read into and held to: the refusal a transport answers by
 * itself, the decoded message, and the budget of bodies being read (`BodyLimits`). A leaf:
 * the neutral request (http-io.ts) and the checks (http-request.ts) both take these types.
 */
import type { Classified } from "../jsonrpc.js";

/** A refusal the transport answers by itself: an HTTP status and, usually, a JSON-RPC error. */
export interface HttpRejection {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** The default body limit: far above any real MCP request, far below a memory problem. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A body decoded once into one JSON-RPC message (see http-request.ts, parseBody). */
export type ParsedBody = Exclude<Classified, { kind: "invalid" }>;

/** The default budget for all bodies being read at once: a few bodies at the per-body limit. */
export const DEFAULT_MAX_TOTAL_BODY_BYTES = 8 * DEFAULT_MAX_BODY_BYTES;
/** The default time a body may take to arrive, from the start of its reading to its end. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * What bounds the request bodies one handler reads: one body's size (`maxBodyBytes`), the
 * bytes of all bodies buffered at once (`maxTotalBodyBytes`), and the time one body takes
 * to arrive (`bodyTimeoutMs`). A body holds its bytes in `held` from the chunk that brings
 * them until it is parsed or refused; so many slow clients, each below the per-body limit,
 * cannot together hold more than the budget.
 */
export class BodyLimits {
  #held = 0;
  readonly maxBodyBytes: number;
  readonly maxTotalBodyBytes: number;
  readonly bodyTimeoutMs: number;

  constructor(maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxTotalBodyBytes?: number, bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS) {
    this.maxBodyBytes = maxBodyBytes;
    this.maxTotalBodyBytes = maxTotalBodyBytes ?? Math.max(DEFAULT_MAX_TOTAL_BODY_BYTES, 8 * maxBodyBytes);
    this.bodyTimeoutMs = bodyTimeoutMs;
  }

  /** Bytes of bodies buffered now, across every request being read. */
  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` from the budget; false (nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.maxTotalBodyBytes) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }
}
