/**
 * The typed primitives next to `addTool`: resources, resource templates, prompts and their
 * completion. Each registration installs the request handlers it needs (unless the
 * application registered its own for that method), so `server/discover` folds them into
 * capabilities like any handler: `resources` and `prompts` once one is registered,
 * `completions` only once a completer is.
 */
import type { ClientRequestMethod, Resource } from "../protocol.js";
import type { RequestContext } from "../connection.js";
import type { Awaitable } from "../subscriptions/types.js";
import { complete } from "./completion.js";
import type { ListsOptions } from "./pagination.js";
import { RequestStateSealer } from "../input-required.js";
import type { JsonSchemaConverter, StandardSchema } from "../schema.js";
import { NO_SCOPES, scopeUnion } from "../scopes.js";
import { isObject } from "../jsonrpc.js";
import { KINDS, MAX_LIST_ENTRIES } from "../subscriptions/filter.js";
import { viewerOf, type Viewer } from "../visibility.js";
import { PromptRegistry, type PromptDefinition, type PromptGetter, type PromptOptions } from "./prompts.js";
import {
  ResourceRegistry,
  type ResourceOptions,
  type ResourceReader,
  type TemplateDefinition,
  type TemplateOptions,
  type TemplateReader,
} from "./resources.js";

const LISTEN_METHOD = "subscriptions/listen" satisfies ClientRequestMethod;
/** The listen filter key that names resource URIs, when the schema has one. */
const URI_FILTER_KEY: string | undefined = KINDS.find((kind) => kind.value === "uris")?.filterKey;

/** The server options the primitives read, on use. */
export interface PrimitivesSettings {
  readonly lists?: ListsOptions;
  readonly stateKey?: string | Uint8Array;
  /** The server's one sealer of input-required state (see tools.ts); without it, one of these primitives' own. */
  readonly sealer?: () => RequestStateSealer;
  readonly toJsonSchema?: JsonSchemaConverter;
}

/** Installs a handler for a method unless one is already registered. */
export type InstallHandler = (method: ClientRequestMethod, handler: (params: any, context: RequestContext) => Awaitable<object>) => void;

export class Primitives {
  readonly #resources = new ResourceRegistry(() => this.#sealer());
  readonly #prompts = new PromptRegistry(
    () => this.#sealer(),
    () => this.settings().toJsonSchema,
  );
  #sealed: RequestStateSealer | undefined;

  constructor(
    private readonly install: InstallHandler,
    private readonly settings: () => PrimitivesSettings,
  ) {}

  #sealer(): RequestStateSealer {
    const settings = this.settings();
    return settings.sealer?.() ?? (this.#sealed ??= new RequestStateSealer(settings.stateKey));
  }

  private lists(): ListsOptions | undefined {
    return this.settings().lists;
  }

  addResource(resource: Resource, read: ResourceReader, options?: ResourceOptions): void {
    this.#resources.add(resource, read, options);
    this.#installResources();
  }

  addResourceTemplate<T extends string, V extends StandardSchema | undefined>(
    template: TemplateDefinition<T, V>,
    read: TemplateReader<T, V>,
    options?: TemplateOptions<T>,
  ): void {
    this.#resources.addTemplate(template, read, options);
    this.#installResources();
    if (options?.complete !== undefined) this.#installCompletion();
  }

  addPrompt<P extends PromptDefinition>(prompt: P, get: PromptGetter<P>, options?: PromptOptions<P>): void {
    this.#prompts.add(prompt, get, options);
    this.install("prompts/list", (params, context) => this.#prompts.list(params?.cursor, this.lists()?.prompts, viewerOf(context.meta)));
    this.install("prompts/get", (params, context) => this.#prompts.get(params, context));
    if (options?.complete !== undefined) this.#installCompletion();
  }

  /** The extensions registered resources belong to (extensions.ts `claimingExtension`). */
  claimedExtensions(): Set<string> {
    return this.#resources.claimedExtensions();
  }

  /**
   * The scopes a request with these params needs, whichever way it reaches a prompt or a
   * resource: `prompts/get` and `resources/read`, and with the same scopes the completion of
   * their arguments or variables, a legacy `resources/subscribe`, and a listen filter naming
   * resource URIs (every scope of every URI it names). `meta`: the request's `_meta` (a legacy
   * session's), which decides which registration a URI resolves to. `viewer`: the caller, when
   * known; what is hidden from it needs no scope (it is answered as what does not exist).
   */
  scopes(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    meta: Readonly<Record<string, unknown>> | undefined,
    viewer?: Viewer,
  ): readonly string[] {
    switch (method) {
      case "prompts/get" satisfies ClientRequestMethod:
        return this.#prompts.scopes(params?.["name"], viewer);
      case "resources/read" satisfies ClientRequestMethod:
      case "resources/subscribe":
        return this.#resources.scopes(params?.["uri"], meta, viewer);
      case "completion/complete" satisfies ClientRequestMethod:
        return this.#completionScopes(params?.["ref"], meta, viewer);
      case LISTEN_METHOD:
        return this.#listenScopes(params?.["notifications"], meta, viewer);
      default:
        return NO_SCOPES;
    }
  }

  #completionScopes(ref: unknown, meta: Readonly<Record<string, unknown>> | undefined, viewer: Viewer | undefined): readonly string[] {
    if (!isObject(ref)) return NO_SCOPES;
    if (ref["type"] === "ref/prompt") return this.#prompts.scopes(ref["name"], viewer);
    if (ref["type"] === "ref/resource") return this.#resources.completionScopes(ref["uri"], meta, viewer);
    return NO_SCOPES;
  }

  /** Every scope the URIs of a listen's resource filter need; a filter too long to be served needs none (the listen is refused anyway). */
  #listenScopes(filter: unknown, meta: Readonly<Record<string, unknown>> | undefined, viewer: Viewer | undefined): readonly string[] {
    const uris = URI_FILTER_KEY === undefined || !isObject(filter) ? undefined : filter[URI_FILTER_KEY];
    if (!Array.isArray(uris) || uris.length > MAX_LIST_ENTRIES) return NO_SCOPES;
    return scopeUnion(uris.map((uri) => this.#resources.scopes(uri, meta, viewer)));
  }

  declaredScopes(): string[] {
    return [...this.#prompts.declaredScopes(), ...this.#resources.declaredScopes()];
  }

  removeResource(uriOrTemplate: string): boolean {
    return this.#resources.remove(uriOrTemplate);
  }

  removePrompt(name: string): boolean {
    return this.#prompts.remove(name);
  }

  #installResources(): void {
    this.install("resources/list", (params, context) => this.#resources.list(params?.cursor, this.lists()?.resources, context.meta));
    this.install("resources/templates/list", (params, context) => this.#resources.listTemplates(params?.cursor, this.lists()?.resourceTemplates, context.meta));
    this.install("resources/read", (params, context) => this.#resources.read(params, context));
  }

  #installCompletion(): void {
    const source = {
      prompt: (name: string, meta: Readonly<Record<string, unknown>>) => this.#prompts.completers(name, viewerOf(meta)),
      template: (uri: string, meta: Readonly<Record<string, unknown>>) => this.#resources.completers(uri, meta, viewerOf(meta)),
    };
    this.install("completion/complete", (params, context) => complete(source, params, context));
  }
}
