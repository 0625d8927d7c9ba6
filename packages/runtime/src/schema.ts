/**
 * One schema per tool side: either a Standard Schema (zod 4, valibot, arktype, ...) or a
 * JSON Schema literal, and the TypeScript type read from it, so no type is kept by hand
 * next to a schema. The runtime imports no schema library: the Standard Schema and Standard
 * JSON Schema interfaces are small, so they are declared here (structurally, as the
 * libraries implement them), and a JSON Schema literal's type is computed by `FromJsonSchema`.
 */

/** A validation issue as Standard Schema reports it. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

/** What the runtime uses of a Standard Schema v1, plus the optional Standard JSON Schema v1 converter. */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
  };
}
export interface StandardJsonSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** What a schema accepts (`input`) and what its validation yields (`output`). */
export type StandardInput<S> = S extends StandardSchema<infer Input, unknown> ? Input : never;
export type StandardOutput<S> = S extends StandardSchema<unknown, infer Output> ? Output : never;

/**
 * Converts a Standard Schema that does not implement Standard JSON Schema itself (valibot:
 * `@valibot/to-json-schema`'s `toJsonSchema`) into the JSON Schema listed to clients.
 * `io` says which side: the value a client sends (`input`) or the one it receives (`output`).
 */
export type JsonSchemaConverter = (schema: StandardSchema, io: "input" | "output") => JsonSchemaObject;
/** A JSON Schema as an object (what tools/list carries). */
export type JsonSchemaObject = { [key: string]: unknown };

export function isStandardSchema(value: unknown): value is StandardSchema {
  // arktype's types are functions, zod's and valibot's objects.
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function";
}

/** The dialect the spec names for tool schemas. */
const TARGET = "draft-2020-12";

/** The JSON Schema a client is shown for this side of a Standard Schema; undefined when neither route converts it. */
export function jsonSchemaOf(schema: StandardSchema, io: "input" | "output", convert: JsonSchemaConverter | undefined): JsonSchemaObject | undefined {
  const own = schema["~standard"].jsonSchema;
  if (own !== undefined) return own[io]({ target: TARGET });
  return convert?.(schema, io);
}

/** A checked value: the value to use (a Standard Schema's output, else the value itself), or why it failed. */
export type Checked = { readonly valid: true; readonly value: unknown } | { readonly valid: false; readonly errors: readonly string[] };

/** Issues reported per failed check; more would only lengthen the message. */
const MAX_REPORTED_ISSUES = 10;

/** Runs a Standard Schema's validation, with its issues as short lines ("/path message"). */
export async function standardCheck(schema: StandardSchema, value: unknown): Promise<Checked> {
  const result = await schema["~standard"].validate(value);
  if (result.issues === undefined) return { valid: true, value: result.value };
  const errors = result.issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => `${issuePath(issue)} ${issue.message}`);
  return { valid: false, errors: errors.length > 0 ? errors : ["/ is invalid"] };
}

function issuePath(issue: StandardIssue): string {
  const keys = (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment));
  return `/${keys.join("/")}`;
}

type Flatten<T> = { [K in keyof T]: T[K] };
type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;
type ExtraProperties<S> = S extends { readonly additionalProperties: infer A }
  ? A extends false
    ? {}
    : A extends true
      ? { [key: string]: unknown }
      : { [key: string]: FromJsonSchema<A> }
  : {};
type FromObject<S> = S extends { readonly properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>;
      } & ExtraProperties<S>
    >
  : S extends { readonly additionalProperties: unknown }
    ? ExtraProperties<S>
    : { [key: string]: unknown };
type FromType<T, S> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I>[]
            : unknown[]
          : T extends "object"
            ? FromObject<S>
            : unknown;

/**
 * The TypeScript type of the values a JSON Schema literal accepts: `type` (one or a list),
 * `properties` with `required` (the others optional), `additionalProperties` (a schema
 * or `true` adds an index signature; without it an object has only its listed keys),
 * `items`, `enum`, `const`, `anyOf` and `oneOf`. Anything else (a `$ref`, `not`, ...) is
 * `unknown`: still checked at run time by the server's validator, only not typed.
 */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer M)[] }
      ? FromJsonSchema<M>
      : S extends { readonly oneOf: readonly (infer M)[] }
        ? FromJsonSchema<M>
        : S extends { readonly type: readonly (infer T)[] }
          ? FromType<T, S>
          : S extends { readonly type: infer T }
            ? FromType<T, S>
            : unknown;

/** The value type of either form: a Standard Schema's `input` or `output` side, or the JSON Schema literal's. */
export type SchemaValue<S, Side extends "input" | "output"> = S extends StandardSchema
  ? Side extends "input"
    ? StandardInput<S>
    : StandardOutput<S>
  : FromJsonSchema<S>;
