/**
 * Resources: static ones by URI and templated ones matched through RFC 6570, served by
 * `resources/list`, `resources/templates/list` and `resources/read`. A template's reader
 * receives the variables typed from its `uriTemplate` literal, or, when the template is
 * given a `variables` Standard Schema (zod, valibot), that schema's output: the matched
 * variables are checked by it (-32602 naming the issues), coerced as it says.
 */
import type { BlobResourceContents, ClientRequestMethod, ReadResourceResult, Resource, ResourceTemplate, TextResourceContents } from "../protocol.js";
import type { RequestContext } from "../connection.js";
import { INVALID_PARAMS, McpError } from "../jsonrpc.js";
import type { Awaitable } from "../subscriptions/types.js";
import type { Completers } from "./completion.js";
import { cacheFields, paginate, type CacheHints, type ListSettings } from "./pagination.js";
import { UriTemplate, type TemplateVariables } from "./uri-template.js";
import { checkedScopes, NO_SCOPES } from "../scopes.js";
import { listHints, shownTo, viewerOf, visibilityRule, type Viewer, type VisibilityOption, type VisibilityRule } from "../visibility.js";
import { bindingOf, inputRound, type InputRequiredAnswer, type InputRound, type RequestStateSealer } from "../input-required.js";
import { claimingExtension, offeredTo } from "../extensions.js";
import { standardCheck, type StandardOutput, type StandardSchema } from "../schema.js";

export type ResourceContents = TextResourceContents | BlobResourceContents;
/** A read's answer: text (the resource's URI and mimeType added), bytes (sent base64), or the full contents with optional cache hints. */
export type ResourceBody = string | Uint8Array | ({ contents: ResourceContents[]; _meta?: ReadResourceResult["_meta"] } & CacheHints);

export type ResourceReader = (uri: string, context: RequestContext, input: InputRound) => Awaitable<ResourceBody | InputRequiredAnswer>;
/** A resource template as registered: the wire `ResourceTemplate`, and optionally a schema for its variables (not listed). */
export type TemplateDefinition<T extends string, V extends StandardSchema | undefined = undefined> = ResourceTemplate & { uriTemplate: T; variables?: V };
/** What a reader's variables are: the `variables` schema's output, else typed from the template. */
export type ReaderVariables<T extends string, V> = V extends StandardSchema ? StandardOutput<V> : TemplateVariables<T>;
export type TemplateReader<T extends string, V extends StandardSchema | undefined = undefined> = (
  uri: string,
  variables: ReaderVariables<T, V>,
  context: RequestContext,
  input: InputRound,
) => Awaitable<ResourceBody | InputRequiredAnswer>;

/** Per resource: the cache hints of its reads (a reader's own hints win), the scopes a read needs, and who may see it (visibility.ts). */
export interface ResourceOptions extends CacheHints, VisibilityOption {
  /** OAuth scopes a `resources/read` of it needs (see `ToolOptions.scopes`). */
  scopes?: readonly string[];
}
export interface TemplateOptions<T extends string> extends ResourceOptions {
  /** Completers for the template's variables, by name. */
  complete?: Completers<TemplateVariables<T>>;
}

/** `extension`: the one the entry's `_meta` ties it to (extensions.ts), listed and read only for clients declaring it. */
interface StaticEntry {
  readonly resource: Resource;
  readonly read: ResourceReader;
  readonly hints: CacheHints;
  readonly extension: string | undefined;
  readonly scopes: readonly string[];
  readonly visible: VisibilityRule | undefined;
}
interface TemplateEntry {
  readonly template: ResourceTemplate;
  readonly extension: string | undefined;
  readonly variables: StandardSchema | undefined;
  readonly matcher: UriTemplate;
  readonly read: (uri: string, variables: unknown, context: RequestContext, input: InputRound) => Awaitable<ResourceBody | InputRequiredAnswer>;
  readonly options: TemplateOptions<string>;
  readonly scopes: readonly string[];
  readonly visible: VisibilityRule | undefined;
}

/** A request's `_meta`: the client capabilities decide which extension's resources it is offered. */
type RequestMeta = Readonly<Record<string, unknown>> | undefined;

/** What `resolve` found: a static resource, or a template with the variables the URI matched. */
type Resolved = { readonly entry: StaticEntry } | { readonly entry: TemplateEntry; readonly variables: NonNullable<ReturnType<UriTemplate["match"]>> };

export class ResourceRegistry {
  readonly #resources = new Map<string, StaticEntry>();
  readonly #templates = new Map<string, TemplateEntry>();

  constructor(private readonly sealer: () => RequestStateSealer) {}

  add(resource: Resource, read: ResourceReader, options: ResourceOptions = {}): void {
    if (typeof resource?.uri !== "string" || resource.uri.length === 0) throw new TypeError("addResource: the resource needs a non-empty uri");
    if (typeof resource.name !== "string") throw new TypeError(`addResource ${resource.uri}: the resource needs a name`);
    cacheFields(options);
    const scopes = checkedScopes(`addResource ${resource.uri}`, options.scopes);
    const visible = visibilityRule(`addResource ${resource.uri}`, options.visibility, scopes);
    this.#resources.set(resource.uri, { resource, read, hints: options, extension: claimingExtension(resource._meta), scopes, visible });
  }

  addTemplate<T extends string, V extends StandardSchema | undefined>(
    definition: TemplateDefinition<T, V>,
    read: TemplateReader<T, V>,
    options: TemplateOptions<T> = {},
  ): void {
    if (typeof definition?.name !== "string") throw new TypeError("addResourceTemplate: the template needs a name");
    const { variables, ...template } = definition;
    const matcher = new UriTemplate(template.uriTemplate);
    cacheFields(options);
    const scopes = checkedScopes(`addResourceTemplate ${template.uriTemplate}`, options.scopes);
    const visible = visibilityRule(`addResourceTemplate ${template.uriTemplate}`, options.visibility, scopes);
    const entry = { template, variables, matcher, read, options, extension: claimingExtension(template._meta), scopes, visible } as unknown as TemplateEntry;
    this.#templates.set(template.uriTemplate, entry);
  }

  remove(uriOrTemplate: string): boolean {
    return this.#resources.delete(uriOrTemplate) || this.#templates.delete(uriOrTemplate);
  }

  get size(): number {
    return this.#resources.size + this.#templates.size;
  }

  /** The completers of the template a `ref/resource` names (by its uriTemplate), when it is offered and shown to the request. */
  completers(uriTemplate: string, meta: RequestMeta, viewer: Viewer): Completers<Record<string, string | undefined>> | undefined {
    const entry = this.#namedTemplate(uriTemplate, meta, viewer);
    return entry === undefined ? undefined : (entry.options.complete ?? {});
  }

  /** The scopes completing a template's variables needs: the template's own, as a read through it would. */
  completionScopes(uriTemplate: unknown, meta: RequestMeta, viewer?: Viewer): readonly string[] {
    return (typeof uriTemplate === "string" ? this.#namedTemplate(uriTemplate, meta, viewer)?.scopes : undefined) ?? NO_SCOPES;
  }

  #namedTemplate(uriTemplate: string, meta: RequestMeta, viewer: Viewer | undefined): TemplateEntry | undefined {
    const entry = this.#templates.get(uriTemplate);
    return entry !== undefined && offeredTo(entry.extension, meta) && shownTo(entry.visible, viewer) ? entry : undefined;
  }

  hasCompleters(): boolean {
    return [...this.#templates.values()].some((entry) => entry.options.complete !== undefined);
  }

  /** The extensions registered resources belong to, for the capabilities the server advertises. */
  claimedExtensions(): Set<string> {
    const entries = [...this.#resources.values(), ...this.#templates.values()];
    return new Set(entries.flatMap((entry) => (entry.extension === undefined ? [] : [entry.extension])));
  }

  list(cursor: unknown, settings: ListSettings | undefined, meta?: Readonly<Record<string, unknown>>) {
    const { page, nextCursor } = paginate(this.#offered(this.#resources, meta), cursor, settings);
    const hints = listHints(settings, hasRules(this.#resources));
    return { resources: page.map((entry) => entry.resource), ...withCursor(nextCursor), ...cacheFields(hints) };
  }

  listTemplates(cursor: unknown, settings: ListSettings | undefined, meta?: Readonly<Record<string, unknown>>) {
    const { page, nextCursor } = paginate(this.#offered(this.#templates, meta), cursor, settings);
    const hints = listHints(settings, hasRules(this.#templates));
    return { resourceTemplates: page.map((entry) => entry.template), ...withCursor(nextCursor), ...cacheFields(hints) };
  }

  /** The entries a list request may see: of the extensions its client declared, shown to its principal. */
  #offered<E extends StaticEntry | TemplateEntry>(entries: Map<string, E>, meta: RequestMeta): E[] {
    const viewer = meta === undefined ? undefined : viewerOf(meta);
    return [...entries.values()].filter((entry) => offeredTo(entry.extension, meta) && shownTo(entry.visible, viewer));
  }

  /**
   * The scopes a read of `uri` (or a subscription to it) needs: those of the one registration
   * `resolve` picks for `viewer` (none when every one it could be is hidden from it).
   */
  scopes(uri: unknown, meta: RequestMeta, viewer?: Viewer): readonly string[] {
    return (typeof uri === "string" ? this.resolve(uri, meta, viewer)?.entry.scopes : undefined) ?? NO_SCOPES;
  }

  /**
   * The one registration that serves `uri` for a request with this `_meta`: an exact static
   * resource offered to it first, then the first offered template the URI fits. Reads,
   * subscriptions and their scope checks all ask this, so a URI never reads through one
   * registration while another's scopes are checked (a static MCP Apps view hides from a
   * client without the extension, and a template of the same URI then serves it). A
   * registration hidden from `viewer` is passed over the same way.
   */
  resolve(uri: string, meta: RequestMeta, viewer?: Viewer): Resolved | undefined {
    const fixed = this.#resources.get(uri);
    if (fixed !== undefined && offeredTo(fixed.extension, meta) && shownTo(fixed.visible, viewer)) return { entry: fixed };
    for (const entry of this.#templates.values()) {
      if (!offeredTo(entry.extension, meta) || !shownTo(entry.visible, viewer)) continue;
      const variables = entry.matcher.match(uri);
      if (variables !== undefined) return { entry, variables };
    }
    return undefined;
  }

  declaredScopes(): string[] {
    return [...this.#resources.values(), ...this.#templates.values()].flatMap((entry) => entry.scopes);
  }

  /** Reads a URI: an exact static resource first, then the first template it fits; otherwise -32602. */
  async read(params: { uri?: unknown; inputResponses?: unknown; requestState?: unknown }, context: RequestContext) {
    const uri = params?.uri;
    if (typeof uri !== "string") throw new McpError(INVALID_PARAMS, "resources/read needs a uri string");
    const input = () => inputRound(this.sealer(), bindingOf("resources/read" satisfies ClientRequestMethod, uri, {}, context.meta["principal"]), params);
    // A resource of an extension the client did not declare, or hidden from its principal, reads as one that does not exist.
    const resolved = this.resolve(uri, context.meta, viewerOf(context.meta));
    if (resolved === undefined) throw new McpError(INVALID_PARAMS, `Resource not found: ${uri}`, { uri });
    if (!("variables" in resolved)) {
      const fixed = resolved.entry;
      return toResult(uri, fixed.resource.mimeType, await fixed.read(uri, context, input()), fixed.hints);
    }
    const { entry, variables } = resolved;
    const checked = entry.variables === undefined ? { valid: true as const, value: variables } : await standardCheck(entry.variables, variables);
    if (!checked.valid) throw new McpError(INVALID_PARAMS, `Resource ${uri}: invalid template variables: ${checked.errors.join("; ")}`, { uri });
    return toResult(uri, entry.template.mimeType, await entry.read(uri, checked.value, context, input()), entry.options);
  }
}

function hasRules(entries: Map<string, StaticEntry | TemplateEntry>): boolean {
  for (const entry of entries.values()) if (entry.visible !== undefined) return true;
  return false;
}

function withCursor(nextCursor: string | undefined): { nextCursor?: string } {
  return nextCursor === undefined ? {} : { nextCursor };
}

function toResult(uri: string, mimeType: string | undefined, body: ResourceBody | InputRequiredAnswer, defaults: CacheHints) {
  if (typeof body === "object" && "resultType" in body) return body;
  const mime = mimeType === undefined ? {} : { mimeType };
  if (typeof body === "string") return { contents: [{ uri, ...mime, text: body }], ...cacheFields(defaults) };
  if (body instanceof Uint8Array) return { contents: [{ uri, ...mime, blob: Buffer.from(body).toString("base64") }], ...cacheFields(defaults) };
  const { ttlMs, cacheScope, ...rest } = body;
  return { ...rest, ...cacheFields({ ttlMs: ttlMs ?? defaults.ttlMs, cacheScope: cacheScope ?? defaults.cacheScope }) };
}
