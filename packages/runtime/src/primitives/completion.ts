/**
 * `completion/complete`: suggestions for a prompt argument or a resource template
 * variable. Completers are registered with the prompt or template they belong to; the
 * runtime answers `completion/complete` (and so advertises `completions`) only once one is.
 */
import type { CompleteRequestParams, CompleteResult } from "../protocol.js";
import type { RequestContext } from "../connection.js";
import { INVALID_PARAMS, McpError } from "../jsonrpc.js";
import type { Awaitable } from "../subscriptions/types.js";

/** The spec's cap on values in one completion answer. */
export const MAX_COMPLETION_VALUES = 100;

export interface CompletionContext<Args> {
  /** Values the client already holds for the other arguments or variables. */
  readonly arguments: Partial<Args>;
  readonly request: RequestContext;
}

/** Suggestions for one value: a list (cut to 100, `total` and `hasMore` filled in) or the full answer. */
export type Completer<Args = Record<string, string | undefined>> = (
  value: string,
  context: CompletionContext<Args>,
) => Awaitable<readonly string[] | CompleteResult["completion"]>;

/** Completers per argument (or variable) name. */
export type Completers<Args> = { readonly [K in keyof Args]?: Completer<Args> };

/** Where completion/complete finds the completers of a prompt (by name) or a template (by its uriTemplate). */
export interface CompletionSource {
  /** `meta`: the request's handler meta, whose principal decides what is shown to it (visibility.ts). */
  prompt(name: string, meta: Readonly<Record<string, unknown>>): Completers<Record<string, string | undefined>> | undefined;
  /** `meta`: the request's, since a template of an extension the client did not declare, or hidden from its principal, is not offered to it. */
  template(uriTemplate: string, meta: Readonly<Record<string, unknown>>): Completers<Record<string, string | undefined>> | undefined;
}

export async function complete(source: CompletionSource, params: CompleteRequestParams, request: RequestContext): Promise<Pick<CompleteResult, "completion">> {
  const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const name = params?.argument?.name;
  const value = params?.argument?.value;
  if (typeof name !== "string" || typeof value !== "string")
    throw new McpError(INVALID_PARAMS, "completion/complete needs argument.name and argument.value strings");
  let completers;
  if (ref?.type === "ref/prompt" && typeof ref.name === "string") {
    completers = source.prompt(ref.name, request.meta);
    if (completers === undefined) throw new McpError(INVALID_PARAMS, `Unknown prompt: ${ref.name}`);
  } else if (ref?.type === "ref/resource" && typeof ref.uri === "string") {
    completers = source.template(ref.uri, request.meta);
    if (completers === undefined) throw new McpError(INVALID_PARAMS, `Unknown resource template: ${ref.uri}`);
  } else {
    throw new McpError(INVALID_PARAMS, 'completion/complete needs ref {type: "ref/prompt", name} or {type: "ref/resource", uri}');
  }
  // Own keys only: a name such as "constructor" must not reach Object.prototype.
  const completer = Object.hasOwn(completers, name) ? completers[name] : undefined;
  if (typeof completer !== "function") return { completion: { values: [], total: 0, hasMore: false } };
  const answer = await completer(value, { arguments: { ...(params.context?.arguments ?? {}) }, request });
  return { completion: capped(answer) };
}

function capped(answer: readonly string[] | CompleteResult["completion"]): CompleteResult["completion"] {
  if (!Array.isArray(answer)) {
    const full = answer as CompleteResult["completion"];
    if (full.values.length <= MAX_COMPLETION_VALUES) return full;
    return { ...full, values: full.values.slice(0, MAX_COMPLETION_VALUES), hasMore: true };
  }
  const values = answer as readonly string[];
  return { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES };
}
