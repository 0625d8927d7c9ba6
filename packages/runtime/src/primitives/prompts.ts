/**
 * Prompts served by `prompts/list` and `prompts/get`. The arguments a prompt declares type
 * what its `get` receives (required ones as `string`, the others optional) without
 * `as const`; a `prompts/get` missing a required argument is refused with -32602 before
 * `get` runs, and only declared arguments reach it. The arguments may instead be one
 * Standard Schema of an object of strings (zod, valibot): listed from the JSON Schema it
 * converts to (each property an argument, `required` and `description` from it), checked
 * by the schema (-32602 naming the issues), and `get` receives the schema's output.
 */
import type { ClientRequestMethod, GetPromptResult, Prompt, PromptArgument } from "../protocol.js";
import type { RequestContext } from "../connection.js";
import { INVALID_PARAMS, McpError } from "../jsonrpc.js";
import type { Awaitable } from "../subscriptions/types.js";
import type { Completers } from "./completion.js";
import { cacheFields, paginate, type ListSettings } from "./pagination.js";
import { checkedScopes, NO_SCOPES } from "../scopes.js";
import { listHints, shownTo, viewerOf, visibilityRule, type Viewer, type VisibilityOption, type VisibilityRule } from "../visibility.js";
import { bindingOf, inputRound, type InputRequiredAnswer, type InputRound, type RequestStateSealer } from "../input-required.js";
import { isStandardSchema, jsonSchemaOf, standardCheck, type JsonSchemaConverter, type StandardOutput, type StandardSchema } from "../schema.js";

/** A prompt as registered: the wire `Prompt`, its argument list possibly read-only (a `const` inference). */
export type PromptDefinition = Omit<Prompt, "arguments"> & { arguments?: readonly PromptArgument[] | StandardSchema };

type Flatten<T> = { [K in keyof T]: T[K] };
type ArgumentList<P extends PromptDefinition> = P["arguments"] extends readonly PromptArgument[] ? P["arguments"][number] : never;

/** `PromptArguments<{ name: "p", arguments: [{ name: "a", required: true }, { name: "b" }] }>` is `{ a: string; b?: string }`. */
export type PromptArguments<P extends PromptDefinition> = P["arguments"] extends StandardSchema
  ? StandardOutput<P["arguments"]>
  : Flatten<
      { [A in ArgumentList<P> as A extends { required: true } ? A["name"] : never]: string } & {
        [A in ArgumentList<P> as A extends { required: true } ? never : A["name"]]?: string;
      }
    >;

/** What `get` answers; `resultType` may be left out (the runtime adds "complete"). */
export type PromptResult = Omit<GetPromptResult, "resultType"> & { resultType?: "complete" };
export type PromptGetter<P extends PromptDefinition> = (
  args: PromptArguments<P>,
  context: RequestContext,
  input: InputRound,
) => Awaitable<PromptResult | InputRequiredAnswer>;

/** `visibility`: who may see it (visibility.ts). */
export interface PromptOptions<P extends PromptDefinition> extends VisibilityOption {
  /** Completers for the prompt's arguments, by name. */
  complete?: Completers<PromptArguments<P>>;
  /** OAuth scopes a `prompts/get` of it needs (see `ToolOptions.scopes`). */
  scopes?: readonly string[];
}

interface PromptEntry {
  readonly prompt: Prompt;
  /** The Standard Schema the arguments are checked with, when the prompt was given one. */
  readonly schema: StandardSchema | undefined;
  readonly get: (args: unknown, context: RequestContext, input: InputRound) => Awaitable<PromptResult | InputRequiredAnswer>;
  readonly complete: Completers<Record<string, string | undefined>> | undefined;
  readonly scopes: readonly string[];
  readonly visible: VisibilityRule | undefined;
}

export class PromptRegistry {
  readonly #prompts = new Map<string, PromptEntry>();

  constructor(
    private readonly sealer: () => RequestStateSealer,
    private readonly toJsonSchema: () => JsonSchemaConverter | undefined = () => undefined,
  ) {}

  add<P extends PromptDefinition>(prompt: P, get: PromptGetter<P>, options: PromptOptions<P> = {}): void {
    if (typeof prompt?.name !== "string" || prompt.name.length === 0) throw new TypeError("addPrompt: the prompt needs a non-empty name");
    const given = prompt.arguments;
    const schema = isStandardSchema(given) ? given : undefined;
    const declared = isStandardSchema(given) ? schemaArguments(prompt.name, given, this.toJsonSchema()) : given;
    const names = (declared ?? []).map((argument) => argument.name);
    for (const name of Object.keys(options.complete ?? {})) {
      if (!names.includes(name)) throw new TypeError(`addPrompt ${prompt.name}: a completer for "${name}", which is not one of its arguments`);
    }
    const { arguments: _given, ...fields } = prompt;
    // The definition is a Prompt apart from its argument list, which is replaced by the listed one.
    const listed = (declared === undefined ? fields : { ...fields, arguments: [...declared] }) as Prompt;
    const scopes = checkedScopes(`addPrompt ${prompt.name}`, options.scopes);
    const visible = visibilityRule(`addPrompt ${prompt.name}`, options.visibility, scopes);
    const complete = options.complete as PromptEntry["complete"];
    this.#prompts.set(prompt.name, { prompt: listed, schema, get: get as PromptEntry["get"], complete, scopes, visible });
  }

  /** The prompt of that name when `viewer` may see it. */
  #shown(name: unknown, viewer: Viewer | undefined): PromptEntry | undefined {
    const entry = typeof name === "string" ? this.#prompts.get(name) : undefined;
    return entry !== undefined && shownTo(entry.visible, viewer) ? entry : undefined;
  }

  /** The scopes a get of the named prompt needs; none when it is hidden from `viewer` (the get fails as an unknown prompt's). */
  scopes(name: unknown, viewer?: Viewer): readonly string[] {
    return this.#shown(name, viewer)?.scopes ?? NO_SCOPES;
  }

  declaredScopes(): string[] {
    return [...this.#prompts.values()].flatMap((entry) => entry.scopes);
  }

  remove(name: string): boolean {
    return this.#prompts.delete(name);
  }

  get size(): number {
    return this.#prompts.size;
  }

  completers(name: string, viewer: Viewer): Completers<Record<string, string | undefined>> | undefined {
    const entry = this.#shown(name, viewer);
    return entry === undefined ? undefined : (entry.complete ?? {});
  }

  hasCompleters(): boolean {
    return [...this.#prompts.values()].some((entry) => entry.complete !== undefined);
  }

  list(cursor: unknown, settings: ListSettings | undefined, viewer?: Viewer) {
    const entries = [...this.#prompts.values()];
    const shown = entries.filter((entry) => shownTo(entry.visible, viewer));
    const { page, nextCursor } = paginate(shown, cursor, settings);
    const filtered = entries.some((entry) => entry.visible !== undefined);
    const hints = listHints(settings, filtered);
    return { prompts: page.map((entry) => entry.prompt), ...(nextCursor === undefined ? {} : { nextCursor }), ...cacheFields(hints) };
  }

  async get(params: { name?: unknown; arguments?: unknown; inputResponses?: unknown; requestState?: unknown }, context: RequestContext) {
    const entry = this.#shown(params?.name, viewerOf(context.meta));
    if (entry === undefined) throw new McpError(INVALID_PARAMS, `Unknown prompt: ${String(params?.name)}`);
    const args = checkedArguments(entry.prompt, params.arguments);
    const checked = entry.schema === undefined ? { valid: true as const, value: args } : await standardCheck(entry.schema, args);
    if (!checked.valid) throw new McpError(INVALID_PARAMS, `Prompt ${entry.prompt.name}: invalid arguments: ${checked.errors.join("; ")}`);
    return entry.get(
      checked.value,
      context,
      inputRound(this.sealer(), bindingOf("prompts/get" satisfies ClientRequestMethod, entry.prompt.name, args, context.meta["principal"]), params),
    );
  }
}

/** A Standard Schema's object properties as the prompt's argument list; a schema that cannot be listed fails addPrompt. */
function schemaArguments(name: string, schema: StandardSchema, convert: JsonSchemaConverter | undefined): PromptArgument[] {
  const json = jsonSchemaOf(schema, "input", convert);
  if (json === undefined) {
    throw new TypeError(
      `addPrompt ${name}: its arguments are a ${schema["~standard"].vendor} schema that does not convert itself to JSON Schema; pass createServer({ toJsonSchema })`,
    );
  }
  const properties = json["properties"];
  if (json["type"] !== "object" || typeof properties !== "object" || properties === null) {
    throw new TypeError(`addPrompt ${name}: its arguments schema must describe an object whose properties are the arguments`);
  }
  const required = Array.isArray(json["required"]) ? json["required"] : [];
  return Object.entries(properties).map(([argument, property]) => {
    const description = (property as { description?: unknown }).description;
    return {
      name: argument,
      ...(typeof description === "string" ? { description } : {}),
      ...(required.includes(argument) ? { required: true } : {}),
    };
  });
}

/** The declared arguments the request gives; a missing required one, or a value that is not a string, is -32602. */
function checkedArguments(prompt: Prompt, given: unknown): Record<string, string> {
  const supplied = (typeof given === "object" && given !== null ? given : {}) as Record<string, unknown>;
  const args: Record<string, string> = {};
  const missing: string[] = [];
  for (const argument of prompt.arguments ?? []) {
    const value = supplied[argument.name];
    if (value === undefined) {
      if (argument.required === true) missing.push(argument.name);
      continue;
    }
    if (typeof value !== "string") throw new McpError(INVALID_PARAMS, `Prompt ${prompt.name}: argument "${argument.name}" must be a string`);
    args[argument.name] = value;
  }
  if (missing.length > 0) throw new McpError(INVALID_PARAMS, `Prompt ${prompt.name}: missing required argument(s) ${missing.join(", ")}`, { missing });
  return args;
}
