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
import { INVALID_PARAMS, McpError } from "./jsonrpc.js";
import type { Awaitable } from "./subscriptions/types.js";
import { cacheFields, paginate, type ListSettings } from "./primitives/pagination.js";
import type { CompiledSchema, SchemaValidator } from "./validation.js";

export type ToolRunner = (args: Record<string, unknown>, context: RequestContext) => Awaitable<Omit<CallToolResult, "resultType"> & { resultType?: string }>;

interface ToolEntry {
  readonly tool: Tool;
  readonly run: ToolRunner;
  readonly checkInput: CompiledSchema | undefined;
  readonly checkOutput: CompiledSchema | undefined;
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

  /** `validator` is read at each add: the server's options are set after this registry is made. */
  constructor(private readonly validator: () => SchemaValidator | undefined = () => undefined) {}

  get size(): number {
    return this.#tools.size;
  }

  add(tool: Tool, run: ToolRunner): void {
    if (typeof tool?.name !== "string" || tool.name.length === 0) throw new TypeError("addTool: the tool needs a non-empty name");
    const validator = this.validator();
    const checkInput = validator === undefined ? undefined : compile(validator, tool, "inputSchema");
    const checkOutput = validator === undefined ? undefined : compile(validator, tool, "outputSchema");
    this.#tools.set(tool.name, { tool, run, checkInput, checkOutput });
  }

  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** One page of the list; by default private and immediately stale, since tools come and go at run time. */
  list(cursor: unknown, settings: ListSettings | undefined) {
    const { page, nextCursor } = paginate([...this.#tools.values()], cursor, settings);
    return { tools: page.map((entry) => entry.tool), ...(nextCursor === undefined ? {} : { nextCursor }), ...cacheFields(settings) };
  }

  /** Runs a tool; a tool that throws reports the failure in its result (isError), as tools do. */
  async call(params: { name?: unknown; arguments?: unknown }, context: RequestContext) {
    const entry = typeof params.name === "string" ? this.#tools.get(params.name) : undefined;
    if (entry === undefined) throw new McpError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const input = entry.checkInput?.(args);
    if (input !== undefined && !input.valid) return failure(`Invalid arguments for tool ${entry.tool.name}: ${input.errors.join("; ")}`);
    let result;
    try {
      result = await entry.run(args, context);
    } catch (error) {
      return failure(error instanceof Error ? error.message : String(error));
    }
    if (entry.checkOutput !== undefined && result?.isError !== true) {
      const output =
        result?.structuredContent === undefined
          ? { valid: false as const, errors: ["structuredContent is missing"] }
          : entry.checkOutput(result.structuredContent);
      if (!output.valid) throw new ToolOutputError(entry.tool.name, output.errors);
    }
    return result;
  }
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
