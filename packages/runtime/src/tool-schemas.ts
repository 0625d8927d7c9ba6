/**
 * A tool's two schemas, each given once: a JSON Schema literal (its type inferred, checked at
 * run time by the server's `SchemaValidator`) or a Standard Schema (checked by itself through
 * `~standard`, listed as the JSON Schema it converts to). From them come the handler's
 * argument type and the structured content it must answer, and the checks `tools/call` runs.
 */
import type { CallToolResult, Tool } from "./protocol.js";
import type { RequestContext } from "./connection.js";
import type { Awaitable } from "./subscriptions/types.js";
import { nonFiniteRefusal, type SchemaValidator } from "./validation.js";
import type { InputRequiredAnswer, InputRound } from "./input-required.js";
import type { TaskStart } from "./tasks/service.js";
import {
  isStandardSchema,
  jsonSchemaOf,
  standardCheck,
  type Checked,
  type JsonSchemaConverter,
  type JsonSchemaObject,
  type SchemaValue,
  type StandardSchema,
} from "./schema.js";

/** What `inputSchema` takes: a JSON Schema object literal, or a Standard Schema of an object. */
export type ToolInputSchema = Tool["inputSchema"] | StandardSchema;
/** What `outputSchema` takes: any JSON Schema literal, or a Standard Schema. */
export type ToolOutputSchema = NonNullable<Tool["outputSchema"]> | StandardSchema;

/** A tool as registered: the wire `Tool`, its schemas in either form. */
export type ToolDefinition<I extends ToolInputSchema = Tool["inputSchema"], O extends ToolOutputSchema | undefined = undefined> = Omit<
  Tool,
  "inputSchema" | "outputSchema"
> & { inputSchema: I; outputSchema?: O };

/** The arguments a tool's handler gets: what its input schema yields once checked. */
export type ToolArguments<I> = SchemaValue<I, "output">;
/** The structured content a tool answers: what its output schema accepts (undefined: no outputSchema). */
export type ToolStructured<O> = [O] extends [undefined] ? undefined : SchemaValue<O, "input">;

type ResultFields = Omit<CallToolResult, "resultType" | "structuredContent" | "isError"> & { resultType?: "complete" };

/**
 * A tool's result (`resultType` may be left out). With an outputSchema, a result that is not
 * an error carries `structuredContent` of the schema's type; an `isError` result need not.
 */
export type ToolResult<Structured = undefined> = [Structured] extends [undefined]
  ? Omit<CallToolResult, "resultType"> & { resultType?: "complete" }
  : ResultFields & ({ isError?: false; structuredContent: Structured } | { isError: true; structuredContent?: Structured });

/**
 * A tool's answer: its result, a request for input (see input-required.ts), or
 * `runAsTask(work)` to run as a task (see tasks/service.ts).
 */
export type ToolAnswer<Structured = undefined> = ToolResult<Structured> | InputRequiredAnswer | TaskStart;
export type ToolRunner<Args = Record<string, unknown>, Structured = undefined> = (
  args: Args,
  context: RequestContext,
  input: InputRound,
) => Awaitable<ToolAnswer<Structured>>;

/** One side of a registered tool: the JSON Schema listed, and its check (none without a validator for a JSON Schema). */
export interface ToolSide {
  readonly json: JsonSchemaObject;
  readonly check: ((value: unknown) => Awaitable<Checked>) | undefined;
}

export interface SideSettings {
  readonly validator?: SchemaValidator | undefined;
  readonly toJsonSchema?: JsonSchemaConverter | undefined;
}

type SideKey = "inputSchema" | "outputSchema";
const IO: Record<SideKey, "input" | "output"> = { inputSchema: "input", outputSchema: "output" };

/** Prepares one side; a schema that cannot be listed or compiled fails `addTool` with one line saying how to fix it. */
export function toolSide(name: string, key: SideKey, schema: ToolOutputSchema, settings: SideSettings): ToolSide {
  if (isStandardSchema(schema)) return standardSide(name, key, schema, settings);
  const validator = settings.validator;
  if (validator === undefined) return { json: schema, check: undefined };
  let compiled;
  try {
    compiled = validator.compile(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // Not the schema's fault: Ajv compiles to code, which some runtimes (Cloudflare Workers) forbid.
    if (error instanceof EvalError)
      throw new TypeError(`addTool ${name}: the validator cannot compile its ${key} on this runtime (${reason}); use cfworkerSchemaValidator here`);
    throw new TypeError(`addTool ${name}: its ${key} cannot be used (${reason}); fix the schema (local $refs only, valid JSON Schema 2020-12)`);
  }
  return {
    json: schema,
    check: (value) => {
      const result = compiled(value);
      return result.valid ? { valid: true, value } : result;
    },
  };
}

function standardSide(name: string, key: SideKey, schema: StandardSchema, settings: SideSettings): ToolSide {
  const vendor = schema["~standard"].vendor;
  let json: JsonSchemaObject | undefined;
  try {
    json = jsonSchemaOf(schema, IO[key], settings.toJsonSchema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`addTool ${name}: its ${key} (${vendor}) has no JSON Schema form (${reason}); use only what JSON Schema can express`);
  }
  if (json === undefined) {
    throw new TypeError(
      `addTool ${name}: its ${key} is a ${vendor} schema that does not convert itself to JSON Schema; pass createServer({ toJsonSchema }) (for valibot: toJsonSchema from @valibot/to-json-schema)`,
    );
  }
  if (key === "inputSchema" && (json as { type?: unknown }).type !== "object") {
    throw new TypeError(`addTool ${name}: its inputSchema must describe an object (tool arguments are a JSON object)`);
  }
  // The JSON Schema adapters refuse non-finite numbers (validation.ts); a Standard Schema is
  // held to the same rule, since some libraries' numbers take Infinity (valibot's `number()`).
  return { json, check: (value) => nonFiniteRefusal(value) ?? standardCheck(schema, value) };
}
