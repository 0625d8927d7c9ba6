/**
 * `addTool` / `removeTool`: a tool list kept by the runtime, served through `tools/list`
 * and `tools/call` unless the application registers those handlers itself.
 */
import type { CallToolResult, Tool } from "./protocol.js";
import type { RequestContext } from "./connection.js";
import { INVALID_PARAMS, McpError } from "./jsonrpc.js";
import type { Awaitable } from "./subscriptions/types.js";
import { cacheFields, paginate, type ListSettings } from "./primitives/pagination.js";

export type ToolRunner = (args: Record<string, unknown>, context: RequestContext) => Awaitable<Omit<CallToolResult, "resultType"> & { resultType?: string }>;

export class ToolRegistry {
  readonly #tools = new Map<string, { tool: Tool; run: ToolRunner }>();

  get size(): number {
    return this.#tools.size;
  }

  add(tool: Tool, run: ToolRunner): void {
    if (typeof tool?.name !== "string" || tool.name.length === 0) throw new TypeError("addTool: the tool needs a non-empty name");
    this.#tools.set(tool.name, { tool, run });
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
    try {
      return await entry.run(args, context);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return { content: [{ type: "text" as const, text }], isError: true };
    }
  }
}
