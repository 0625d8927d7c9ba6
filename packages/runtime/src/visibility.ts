/**
 * Who may see a tool, resource, resource template or prompt. A primitive with a `visibility`
 * option is listed only to the principals it admits, and to everyone else it does not exist:
 * its call, read, get, completion or subscription is answered as an unknown name's, never
 * 403, so that a list cannot be probed by calling. The principal is the one the transport
 * vouched for (the request's `_meta.principal`, which a client cannot write: meta.ts).
 */
import { TokenPrincipal } from "./auth/principal.js";
import type { CacheHints } from "./primitives/pagination.js";

/** The message-context key a transport vouches for the caller with (HTTP authentication). */
const PRINCIPAL_KEY = "principal";

/** Decides for one principal: undefined for an anonymous caller (stdio, HTTP without authentication). */
export type VisibilityPredicate = (principal: unknown) => boolean;

/** Who may see a primitive; with both fields, a principal must pass both. */
export interface Visibility {
  /**
   * Shown only to a principal whose token carries every scope the primitive declares
   * (`scopes`): an OAuth `TokenPrincipal`, or any principal with a `scopes` array. Without
   * a principal (stdio) it is hidden.
   */
  readonly byScopes?: boolean;
  /** Shown only when this answers true for the request's principal; a predicate that throws hides it. */
  readonly when?: VisibilityPredicate;
}

/** The option every primitive's registration takes. */
export interface VisibilityOption {
  readonly visibility?: Visibility;
}

/** A registration's rule, checked when it is added; undefined when everyone sees it. */
export type VisibilityRule = (principal: unknown) => boolean;

/** The rule of one registration; `what` names it in the error of a malformed option. */
export function visibilityRule(what: string, visibility: Visibility | undefined, scopes: readonly string[]): VisibilityRule | undefined {
  if (visibility === undefined) return undefined;
  if (typeof visibility !== "object" || visibility === null) throw new TypeError(`${what}: visibility must be an object`);
  const { byScopes, when } = visibility;
  if (when !== undefined && typeof when !== "function") throw new TypeError(`${what}: visibility.when must be a function of the principal`);
  const needsScopes = byScopes === true && scopes.length > 0;
  if (!needsScopes && when === undefined) return undefined;
  return (principal) => (!needsScopes || grantedAll(principal, scopes)) && admitted(when, principal);
}

/**
 * Who is looking: the principal the transport vouched for, anonymous as undefined. Passed
 * apart from a request's `_meta`, which before a request is served is still the client's
 * own writing. Where no viewer is given (a caller asking what a name declares), every
 * registration counts as visible, so its scopes are never skipped.
 */
export interface Viewer {
  readonly principal: unknown;
}

/** The viewer of a request being served: its handler meta carries the vouched-for principal (meta.ts `mergeMeta`). */
export function viewerOf(handlerMeta: Readonly<Record<string, unknown>>): Viewer {
  return { principal: handlerMeta[PRINCIPAL_KEY] };
}

/** Whether a registration with this rule is shown to the request being served; nothing is made for one without a rule (a call's hot path). */
export function shownToRequest(rule: VisibilityRule | undefined, handlerMeta: Readonly<Record<string, unknown>>): boolean {
  return rule === undefined || rule(handlerMeta[PRINCIPAL_KEY]);
}

/** Whether a registration with this rule is shown to `viewer` (always, when no viewer is given). */
export function shownTo(rule: VisibilityRule | undefined, viewer: Viewer | undefined): boolean {
  return rule === undefined || viewer === undefined || rule(viewer.principal);
}

/**
 * The cache hints of a list some of whose entries are not shown to everyone: never
 * "public", whatever the server's settings say, since a shared cache would hand one
 * principal's list to another.
 */
export function listHints(settings: CacheHints | undefined, filtered: boolean): CacheHints | undefined {
  return filtered && settings?.cacheScope === "public" ? { ...settings, cacheScope: "private" } : settings;
}

function grantedAll(principal: unknown, required: readonly string[]): boolean {
  if (principal instanceof TokenPrincipal) return principal.hasScopes(required);
  const scopes = typeof principal === "object" && principal !== null ? (principal as { scopes?: unknown }).scopes : undefined;
  return Array.isArray(scopes) && required.every((scope) => scopes.includes(scope));
}

/** A predicate that throws hides rather than fails the list: a list is never refused for one entry. */
function admitted(when: VisibilityPredicate | undefined, principal: unknown): boolean {
  if (when === undefined) return true;
  try {
    return when(principal) === true;
  } catch {
    return false;
  }
}
