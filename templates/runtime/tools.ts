/**
 * `addTool` / `removeTool`: a tool list kept by the runtime, served through `tools/list`
 * and `tools/call` unless the application registers those handlers itself. With a
 * `SchemaValidator`, arguments are checked against `inputSchema` before `run` (a violation
 * is a tool execution error, `isError: true`, and `run` never starts: the spec's tools page
 * lists input validation among the errors a model can correct), and a result is checked
 * against `outputSchema` after it (a violation is the server's own fault, so the client
 * gets a protocol error, -32603, never the invalid structured content).
 */
import type { CallToolResult, Tool } from "./protocol.js";
import type { RequestContext } from "./connection.js";
import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from "./jsonrpc.js";
import type { EventHook } from "./hooks.js";
import type { Awaitable } from "./subscriptions/types.js";
import { cacheFields, paginate, type ListSettings } from "./primitives/pagination.js";
import type { CompiledSchema, SchemaValidator } from "./validation.js";
import { readParamHeaders, type ParamHeader } from "./transports/param-headers.js";
import { bindingOf, inputRound, RequestStateSealer, type InputRequiredAnswer, type InputRound } from "./input-required.js";
import { TaskStart, type TaskService } from "./tasks/service.js";
import { checkedScopes, NO_SCOPES } from "./scopes.js";

/**
 * A tool's answer: its result (`resultType` may be left out), a request for input (see
 * input-required.ts), or `runAsTask(work)` to run as a task (see tasks/service.ts).
 */
export type ToolAnswer = (Omit<CallToolResult, "resultType"> & { resultType?: "complete" }) | InputRequiredAnswer | TaskStart;
export type ToolRunner = (args: Record<string, unknown>, context: RequestContext, input: InputRound) => Awaitable<ToolAnswer>;

/** How a tool is served beyond its definition. */
export interface ToolOptions {
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
  readonly stateKey?: string | Uint8Array;
  /** The server's tasks, for tools that answer `runAsTask(...)`. */
  readonly tasks?: TaskService;
  /** Where a task's result that breaks its tool's outputSchema is reported. */
  readonly onEvent?: EventHook;
}

interface ToolEntry {
  readonly tool: Tool;
  readonly run: ToolRunner;
  readonly checkInput: CompiledSchema | undefined;
  readonly checkOutput: CompiledSchema | undefined;
  readonly paramHeaders: readonly ParamHeader[];
  readonly scopes: readonly string[];
}

/** Raised when a tool's result breaks its outputSchema; the server reports it (onEvent) and answers -32603. */
export class ToolOutputError extends Error {
  constructor(
    readonly tool: string,
    readonly errors: readonly string[],
  ) {
    super(`Tool ${tool} returned a result that does not match its outputSchema: ${errors.join("; ")}`);
    this.name = "ToolOutputError";
  }
}

export class ToolRegistry {
  readonly #tools = new Map<string, ToolEntry>();

  #sealer: RequestStateSealer | undefined;

  /** Settings are read on use: the server's options are set after this registry is made. */
  constructor(private readonly settings: () => RegistrySettings = () => ({})) {}

  get size(): number {
    return this.#tools.size;
  }

  add(tool: Tool, run: ToolRunner, options: ToolOptions = {}): void {
    if (typeof tool?.name !== "string" || tool.name.length === 0) throw new TypeError("addTool: the tool needs a non-empty name");
    const paramHeaders = readParamHeaders(tool.name, tool.inputSchema);
    const validator = this.settings().validator;
    const checkInput = validator === undefined ? undefined : compile(validator, tool, "inputSchema");
    const checkOutput = validator === undefined ? undefined : compile(validator, tool, "outputSchema");
    const scopes = checkedScopes(`addTool ${tool.name}`, options.scopes);
    this.#tools.set(tool.name, { tool, run, checkInput, checkOutput, paramHeaders, scopes });
  }

  /** The scopes a call of the named tool needs; none for an unknown tool (its call fails on its own). */
  scopes(name: unknown): readonly string[] {
    return (typeof name === "string" ? this.#tools.get(name)?.scopes : undefined) ?? NO_SCOPES;
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

  /** One page of the list; by default private and immediately stale, since tools come and go at run time. */
  list(cursor: unknown, settings: ListSettings | undefined) {
    const { page, nextCursor } = paginate([...this.#tools.values()], cursor, settings);
    return { tools: page.map((entry) => entry.tool), ...(nextCursor === undefined ? {} : { nextCursor }), ...cacheFields(settings) };
  }

  /** Runs a tool; a tool that throws reports the failure in its result (isError), as tools do; an McpError stays a protocol error. */
  async call(params: { name?: unknown; arguments?: unknown; inputResponses?: unknown; requestState?: unknown }, context: RequestContext) {
    const entry = typeof params.name === "string" ? this.#tools.get(params.name) : undefined;
    if (entry === undefined) throw new McpError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const checked = entry.checkInput?.(args);
    if (checked !== undefined && !checked.valid) return failure(`Invalid arguments for tool ${entry.tool.name}: ${checked.errors.join("; ")}`);
    this.#sealer ??= new RequestStateSealer(this.settings().stateKey);
    const input = inputRound(this.#sealer, bindingOf("tools/call", entry.tool.name, args), params);
    let result;
    try {
      result = await entry.run(args, context, input);
    } catch (error) {
      if (error instanceof McpError) throw error;
      return failure(error instanceof Error ? error.message : String(error));
    }
    if (result instanceof TaskStart) {
      const tasks = this.settings().tasks;
      if (tasks === undefined) throw new McpError(INVALID_PARAMS, `Tool ${entry.tool.name} runs as a task, which this server does not serve`);
      return tasks.begin(this.#checkedTask(entry, result, context), context);
    }
    if (result?.resultType === "input_required") return result;
    const violation = outputViolation(entry, result);
    if (violation !== undefined) throw violation;
    return result;
  }

  /**
   * A task's work whose result is held to the tool's outputSchema as a direct answer is: a
   * violation is reported and answered -32603 (the task fails with it), never stored as valid.
   */
  #checkedTask(entry: ToolEntry, start: TaskStart, context: RequestContext): TaskStart {
    if (entry.checkOutput === undefined) return start;
    return new TaskStart(async (task) => {
      const outcome = await start.work(task);
      const violation = outputViolation(entry, outcome);
      if (violation === undefined) return outcome;
      try {
        this.settings().onEvent?.({ type: "handler-error", id: context.requestId, callback: "tools/call", error: violation });
      } catch {
        // A failing hook must not change the answer.
      }
      throw new McpError(INTERNAL_ERROR, "Internal error while handling tools/call");
    }, start.options);
  }
}

/** Why a result breaks its tool's outputSchema, or undefined (no schema, a validator-less server, or an isError result). */
function outputViolation(entry: ToolEntry, result: { isError?: boolean; structuredContent?: unknown } | undefined): ToolOutputError | undefined {
  if (entry.checkOutput === undefined || result?.isError === true) return undefined;
  const output =
    result?.structuredContent === undefined ? { valid: false as const, errors: ["structuredContent is missing"] } : entry.checkOutput(result.structuredContent);
  return output.valid ? undefined : new ToolOutputError(entry.tool.name, output.errors);
}

function failure(text: string) {
  return { content: [{ type: "text" as const, text }], isError: true };
}

function compile(validator: SchemaValidator, tool: Tool, key: "inputSchema" | "outputSchema"): CompiledSchema | undefined {
  const schema = tool[key];
  if (schema === undefined) return undefined;
  try {
    return validator.compile(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`addTool ${tool.name}: its ${key} cannot be used (${reason}); fix the schema (local $refs only, valid JSON Schema 2020-12)`);
  }
}
