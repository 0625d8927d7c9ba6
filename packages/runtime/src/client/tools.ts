/**
 * What the client knows of a server's tools: which parameters each mirrors into
 * `Mcp-Param-*` headers (read from `x-mcp-header` with the server side's own reader, so a
 * tool whose annotations break the spec's constraints is left out, as the spec asks of
 * clients), and the typed binding `client.tools.<name>(args)` a generated client file
 * declares: one function per tool, its arguments and structured result typed from the
 * tool's schemas.
 */
import type { JsonRpcMessage } from "../jsonrpc.js";
import type { CallToolResult, ClientRequestMethod, Tool } from "../protocol.js";
import { encodeHeaderValue } from "../transports/http-request.js";
import { readParamHeaders, type ParamHeader } from "../transports/param-headers.js";

/** A tool's types as a generated client file declares them. */
export interface ToolTypes {
  readonly arguments: object;
  /** The structured content `outputSchema` describes; `unknown` for a tool without one. */
  readonly output: unknown;
}

/** Tool name -> its types. */
export type ToolMap = { readonly [name: string]: ToolTypes };

/** What a tool call answers, its structured content typed. */
export type ToolCallResult<Output> = Omit<CallToolResult, "structuredContent"> & { structuredContent?: Output };

/** Tools whose arguments are all optional may be called without any. */
type ToolArgs<Types extends ToolTypes> = {} extends Types["arguments"] ? [args?: Types["arguments"]] : [args: Types["arguments"]];

/** `client.tools`: one function per tool of the map. */
export type ToolBinding<Tools extends ToolMap> = {
  readonly [Name in keyof Tools]: (...args: ToolArgs<Tools[Name]>) => Promise<ToolCallResult<Tools[Name]["output"]>>;
};

/** The headers a generated file records per tool (its `x-mcp-header` parameters), as the server side reads them. */
export type ToolHeaderTable = Readonly<Record<string, readonly ParamHeader[]>>;

/** The tools' header parameters, learnt from a generated file and from every `tools/list` the client reads. */
export class ToolDirectory {
  readonly #headers = new Map<string, readonly ParamHeader[]>();
  readonly #refused = new Map<string, string>();
  /** Whether headers are sent at all (Streamable HTTP): a call of a tool not yet known then lists the tools first. */
  mirrors = false;

  constructor(known: ToolHeaderTable = {}) {
    for (const [name, headers] of Object.entries(known)) this.#headers.set(name, headers);
  }

  /** The listed tools a client may call: one whose `x-mcp-header` annotations are invalid is left out (and refused if called). */
  learn(tools: readonly Tool[]): Tool[] {
    const usable: Tool[] = [];
    for (const tool of tools) {
      try {
        this.#headers.set(tool.name, readParamHeaders(tool.name, tool.inputSchema));
        this.#refused.delete(tool.name);
        usable.push(tool);
      } catch (error) {
        this.#headers.delete(tool.name);
        this.#refused.set(tool.name, error instanceof Error ? error.message : String(error));
      }
    }
    return usable;
  }

  /** Whether the tool's header parameters are known (from the generated file or a listing). */
  knows(name: string): boolean {
    return this.#headers.has(name) || this.#refused.has(name);
  }

  /** Why a tool may not be called (its definition was invalid), or undefined. */
  refusal(name: string): string | undefined {
    return this.#refused.get(name);
  }

  /** `Mcp-Param-*` for a `tools/call` message: each annotated parameter that has a value (null and absent are left out). */
  headersFor(message: JsonRpcMessage): Record<string, string> | undefined {
    if (!("method" in message) || message.method !== ("tools/call" satisfies ClientRequestMethod)) return undefined;
    const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
    const headers = typeof params?.name === "string" ? this.#headers.get(params.name) : undefined;
    if (headers === undefined || headers.length === 0) return undefined;
    const mirrored: Record<string, string> = {};
    for (const header of headers) {
      const value = valueAt(params?.arguments, header.path);
      if (typeof value === "string") mirrored[header.header] = encodeHeaderValue(value);
      else if (typeof value === "number" || typeof value === "boolean") mirrored[header.header] = String(value);
    }
    return mirrored;
  }
}

/** Builds `client.tools` for the names of a generated file, each a call through `callTool`. */
export function bindTools<Tools extends ToolMap>(
  names: readonly (keyof Tools & string)[],
  callTool: (name: string, args: object | undefined) => Promise<ToolCallResult<unknown>>,
): ToolBinding<Tools> {
  const binding: Record<string, (args?: object) => Promise<ToolCallResult<unknown>>> = {};
  // Defined, not assigned: a server's tool named `__proto__` must become a key, not the prototype.
  for (const name of names) Object.defineProperty(binding, name, { value: (args?: object) => callTool(name, args), enumerable: true });
  return binding as unknown as ToolBinding<Tools>;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}
