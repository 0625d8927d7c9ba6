/**
 * `addTool` / `removeTool`: a tool list kept by the runtime, served through `tools/list`
 * and `tools/call` unless the application registers those handlers itself. Arguments are
 * checked against `inputSchema` before `run` (a violation is a tool execution error,
 * `isError: true`, and `run` never starts: the spec's tools page lists input validation
 * among the errors a model can correct), and a result against `outputSchema` after it (a
 * violation is the server's own fault, so the client gets a protocol error, -32603, never
 * the invalid structured content). A Standard Schema checks itself; a JSON Schema is
 * checked by the server's `SchemaValidator`, and not at all without one (tool-schemas.ts).
 */
import type { ClientRequestMethod, Tool } from "./protocol.js";
import type { RequestContext } from "./connection.js";
import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from "./jsonrpc.js";
import type { EventHook } from "./hooks.js";
import type { Awaitable } from "./subscriptions/types.js";
import { cacheFields, paginate, type ListSettings } from "./primitives/pagination.js";
import type { SchemaValidator } from "./validation.js";
import type { JsonSchemaConverter } from "./schema.js";
import { readParamHeaders, type ParamHeader } from "./transports/param-headers.js";
import { bindingOf, inputRound, RequestStateSealer, type InputRequiredAnswer, type InputRound } from "./input-required.js";
import { TaskStart, type TaskOutcome, type TaskService } from "./tasks/service.js";
import { claimingExtension, offeredTo } from "./extensions.js";
import { toolSide, type ToolDefinition, type ToolInputSchema, type ToolOutputSchema, type ToolSide } from "./tool-schemas.js";
import { checkedScopes, NO_SCOPES } from "./scopes.js";
import { portableSchema, type ToolSchemaForm } from "./schema-portability/inline.js";
import { listHints, shownTo, shownToRequest, viewerOf, visibilityRule, type Viewer, type VisibilityOption, type VisibilityRule } from "./visibility.js";

/** The methods a tool registry serves, pinned to the generated map: a renamed method fails to compile here. */
export const TOOLS_LIST = "tools/list" satisfies ClientRequestMethod;
export const TOOLS_CALL = "tools/call" satisfies ClientRequestMethod;

/** How a tool is served beyond its definition; `visibility`: who may see it (visibility.ts). */
export interface ToolOptions extends VisibilityOption {
  /**
   * OAuth scopes a caller's token must carry to call it (all of them); an HTTP server with
   * OAuth answers a call without them 403 `insufficient_scope` (see auth/). Listed in the
   * server's Protected Resource Metadata. Ignored where no authorization applies (stdio).
   */
  readonly scopes?: readonly string[];
}

/** The server options a registry reads (after the server is made). */
export interface RegistrySettings {
  readonly validator?: SchemaValidator;
  /** Lists a Standard Schema that does not convert itself (see schema.ts). */
  readonly toJsonSchema?: JsonSchemaConverter;
  readonly stateKey?: string | Uint8Array;
  /** The server's one sealer of input-required state, shared with prompts and resources (each seal opens once, whatever it was for). */
  readonly sealer?: () => RequestStateSealer;
  /** The server's tasks, for tools that answer `runAsTask(...)`. */
  readonly tasks?: TaskService;
  /** Where a task's result that breaks its tool's outputSchema is reported. */
  readonly onEvent?: EventHook;
  /** How `tools/list` shows the schemas (see server-options.ts). */
  readonly toolSchemas?: ToolSchemaForm;
}

/** A tool's handler as the registry holds it: its argument and result types were checked at `addTool`. */
type StoredRunner = (args: never, context: RequestContext, input: InputRound) => Awaitable<StoredAnswer>;
type StoredAnswer = TaskOutcome | InputRequiredAnswer | TaskStart;
type AnyDefinition = ToolDefinition<ToolInputSchema, ToolOutputSchema | undefined>;

interface ToolEntry {
  /** The tool as listed: both schemas in JSON Schema form. */
  readonly tool: Tool;
  readonly run: (args: unknown, context: RequestContext, input: InputRound) => Awaitable<StoredAnswer>;
  readonly input: ToolSide;
  readonly output: ToolSide | undefined;
  readonly paramHeaders: readonly ParamHeader[];
  /** The extension its `_meta` ties it to (extensions.ts `claimingExtension`): listed and called only for clients declaring it. */
  readonly extension: string | undefined;
  /** The OAuth scopes a call needs (see auth/); none for most tools. */
  readonly scopes: readonly string[];
  /** Who may see it; undefined: everyone. */
  readonly visible: VisibilityRule | undefined;
  /**
   * Where `addTool` was called: the cause a ToolOutputError carries, since its own stack
   * holds only the runtime (the tool had returned), so that a log can point at the tool.
   */
  readonly addedAt: Error;
}

/**
 * An error whose message is written for the model: thrown by a tool (or anything it calls),
 * the message is the text of its isError result. Any other error a tool throws is answered
 * with a generic text naming the tool, since its message may carry what a client must not
 * see (paths, queries, credentials), and is reported to `onEvent` with its cause.
 */
export class ToolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
  }
}

/** Raised when a tool's result breaks its outputSchema; the server reports it (onEvent) and answers -32603. */
export class ToolOutputError extends Error {
  constructor(
    readonly tool: string,
    readonly errors: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Tool ${tool} returned a result that does not match its outputSchema: ${errors.join("; ")}`, options);
    this.name = "ToolOutputError";
  }
}

export class ToolRegistry {
  readonly #tools = new Map<string, ToolEntry>();

  /** This registry's own sealer, when the server gives it none (a registry used alone). */
  #sealer: RequestStateSealer | undefined;

  /** Settings are read on use: the server's options are set after this registry is made. */
  constructor(private readonly settings: () => RegistrySettings = () => ({})) {}

  get size(): number {
    return this.#tools.size;
  }

  #stateSealer(): RequestStateSealer {
    const settings = this.settings();
    return settings.sealer?.() ?? (this.#sealer ??= new RequestStateSealer(settings.stateKey));
  }

  add(definition: AnyDefinition, run: StoredRunner, options: ToolOptions = {}): void {
    const name = definition?.name;
    if (typeof name !== "string" || name.length === 0) throw new TypeError("addTool: the tool needs a non-empty name");
    const settings = this.settings();
    const input = toolSide(name, "inputSchema", definition.inputSchema, settings);
    const output = definition.outputSchema === undefined ? undefined : toolSide(name, "outputSchema", definition.outputSchema, settings);
    const { outputSchema: _given, ...fields } = definition;
    const given: Tool = { ...fields, inputSchema: { ...input.json, type: "object" }, ...(output === undefined ? {} : { outputSchema: output.json }) };
    const paramHeaders = readParamHeaders(name, given.inputSchema);
    // Listed in the portable form if asked; arguments are still checked against the schema given.
    const tool = settings.toolSchemas === "portable" ? portableTool(given) : given;
    // The handler's parameter type is what the input check yields, so it is called only with checked arguments.
    const scopes = checkedScopes(`addTool ${name}`, options.scopes);
    const visible = visibilityRule(`addTool ${name}`, options.visibility, scopes);
    const addedAt = new Error(`tool ${name} was added here`);
    const extension = claimingExtension(tool._meta);
    this.#tools.set(name, { tool, run: run as ToolEntry["run"], input, output, paramHeaders, extension, scopes, visible, addedAt });
  }

  /**
   * The scopes a call of the named tool needs; none for an unknown tool, or one hidden from
   * `viewer` (either call fails on its own, as an unknown tool's).
   */
  scopes(name: unknown, viewer?: Viewer): readonly string[] {
    const entry = typeof name === "string" ? this.#tools.get(name) : undefined;
    return entry !== undefined && shownTo(entry.visible, viewer) ? entry.scopes : NO_SCOPES;
  }

  /** Every scope some tool declares. */
  declaredScopes(): string[] {
    return [...this.#tools.values()].flatMap((entry) => entry.scopes);
  }

  /** The tool's `x-mcp-header` parameters, for the HTTP transport's check; undefined for an unknown tool. */
  paramHeaders(name: string): readonly ParamHeader[] | undefined {
    return this.#tools.get(name)?.paramHeaders;
  }

  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The extensions registered tools belong to, for the capabilities the server advertises. */
  claimedExtensions(): Set<string> {
    return new Set([...this.#tools.values()].flatMap((entry) => (entry.extension === undefined ? [] : [entry.extension])));
  }

  /** One page of the list; by default private and immediately stale, since tools come and go at run time. */
  list(cursor: unknown, settings: ListSettings | undefined, meta?: Readonly<Record<string, unknown>>) {
    const viewer = meta === undefined ? undefined : viewerOf(meta);
    const entries = [...this.#tools.values()];
    const offered = entries.filter((entry) => offeredTo(entry.extension, meta) && shownTo(entry.visible, viewer));
    const { page, nextCursor } = paginate(offered, cursor, settings);
    const filtered = entries.some((entry) => entry.visible !== undefined);
    const hints = listHints(settings, filtered);
    return { tools: page.map((entry) => entry.tool), ...(nextCursor === undefined ? {} : { nextCursor }), ...cacheFields(hints) };
  }

  /**
   * Runs a tool; a tool that throws reports the failure in its result (isError), as tools do,
   * with the message of a ToolError and a generic text for anything else; an McpError stays a
   * protocol error.
   */
  async call(params: { name?: unknown; arguments?: unknown; inputResponses?: unknown; requestState?: unknown }, context: RequestContext) {
    const found = typeof params.name === "string" ? this.#tools.get(params.name) : undefined;
    // A tool of an extension the client did not declare, or hidden from its principal, is one it does not know.
    const shown = found !== undefined && offeredTo(found.extension, context.meta) && shownToRequest(found.visible, context.meta);
    const entry = shown ? found : undefined;
    if (entry === undefined) throw new McpError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const checked = entry.input.check === undefined ? { valid: true as const, value: args } : await entry.input.check(args);
    if (!checked.valid) return failure(`Invalid arguments for tool ${entry.tool.name}: ${checked.errors.join("; ")}`);
    const input = inputRound(this.#stateSealer(), bindingOf(TOOLS_CALL, entry.tool.name, args, context.meta["principal"]), params);
    let result;
    try {
      result = await entry.run(checked.value, context, input);
    } catch (error) {
      if (error instanceof McpError) throw error;
      if (error instanceof ToolError) return failure(error.message);
      this.#report(context, entry.tool.name, error);
      return failure(`Tool ${entry.tool.name} failed; the server's log says why`);
    }
    if (result instanceof TaskStart) {
      const tasks = this.settings().tasks;
      if (tasks === undefined) throw new McpError(INVALID_PARAMS, `Tool ${entry.tool.name} runs as a task, which this server does not serve`);
      return tasks.begin(this.#checkedTask(entry, result, context), context);
    }
    if (result?.resultType === "input_required") return result;
    return this.#checkedAnswer(entry, result, context);
  }

  /** The result checked against the tool's outputSchema; a violation is reported, naming the tool, and answered -32603. */
  async #checkedAnswer<R extends TaskOutcome>(entry: ToolEntry, result: R, context: RequestContext): Promise<R> {
    try {
      return await checkedOutput(entry, result);
    } catch (error) {
      if (!(error instanceof ToolOutputError)) throw error;
      this.#report(context, entry.tool.name, error);
      throw new McpError(INTERNAL_ERROR, `Internal error while handling ${TOOLS_CALL}`);
    }
  }

  #report(context: RequestContext, tool: string, error: unknown): void {
    try {
      this.settings().onEvent?.({ type: "handler-error", id: context.requestId, callback: TOOLS_CALL, tool, error });
    } catch {
      // A failing hook must not change the answer.
    }
  }

  /**
   * A task's work whose result is held to the tool's outputSchema as a direct answer is: a
   * violation is reported and answered -32603 (the task fails with it), never stored as valid.
   */
  #checkedTask(entry: ToolEntry, start: TaskStart, context: RequestContext): TaskStart {
    if (entry.output?.check === undefined) return start;
    return new TaskStart(async (task) => this.#checkedAnswer(entry, await start.work(task), context), start.options);
  }
}

/**
 * The result with its structured content checked against the outputSchema (a Standard
 * Schema's output replacing it); a violation throws ToolOutputError. Unchecked: no schema,
 * a JSON Schema on a validator-less server, or an isError result.
 */
async function checkedOutput<R extends TaskOutcome>(entry: ToolEntry, result: R): Promise<R> {
  const check = entry.output?.check;
  if (check === undefined || result?.isError === true) return result;
  const output =
    result?.structuredContent === undefined ? { valid: false as const, errors: ["structuredContent is missing"] } : await check(result.structuredContent);
  if (!output.valid) throw new ToolOutputError(entry.tool.name, output.errors, { cause: entry.addedAt });
  return output.value === result.structuredContent ? result : { ...result, structuredContent: output.value };
}

/** The tool with both schemas in their portable form (references inlined). */
function portableTool(tool: Tool): Tool {
  const { inputSchema, outputSchema } = tool;
  return { ...tool, inputSchema: portableSchema(inputSchema), ...(outputSchema === undefined ? {} : { outputSchema: portableSchema(outputSchema) }) };
}

function failure(text: string) {
  return { content: [{ type: "text" as const, text }], isError: true };
}
