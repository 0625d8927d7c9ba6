/**
 * What the conformance server offers, as data: tools and prompts by name, each with the
 * code that answers it. The server registers one `tools/*` and one `prompts/*` handler pair
 * through the runtime's router that serve whatever the catalog holds.
 */
import type { RequestContext } from "../../../templates/runtime/index.js";
import type { CallToolResult, GetPromptResult, Prompt, Tool } from "../../../generated/v2607/types.js";

/** The params of a request that may be retried with input (SEP-2322). */
export interface RetryParams {
  readonly arguments?: Record<string, unknown>;
  readonly inputResponses?: unknown;
  readonly requestState?: string;
}

/** A result for the runtime to finish: complete (it adds `resultType`), or `input_required`. */
type Complete<T> = Omit<T, "resultType"> & { resultType?: "complete" };
export type InputRequired = { resultType: "input_required"; inputRequests?: Record<string, object>; requestState?: string };
export type ToolAnswer = Complete<CallToolResult> | InputRequired;
export type PromptAnswer = Complete<GetPromptResult> | InputRequired;

export interface ToolEntry {
  readonly tool: Tool;
  run(params: RetryParams, context: RequestContext): ToolAnswer | Promise<ToolAnswer>;
}

export interface PromptEntry {
  readonly prompt: Prompt;
  get(params: RetryParams, context: RequestContext): PromptAnswer | Promise<PromptAnswer>;
}

export class Catalog {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();

  tool(name: string, description: string, run: ToolEntry["run"], inputSchema: Tool["inputSchema"] = { type: "object" }): void {
    this.tools.set(name, { tool: { name, description, inputSchema }, run });
  }

  prompt(prompt: Prompt, get: PromptEntry["get"]): void {
    this.prompts.set(prompt.name, { prompt, get });
  }
}

export const text = (value: string): Complete<CallToolResult> => ({ content: [{ type: "text", text: value }] });
