/**
 * Tool input and output checked against their JSON Schemas (2020-12, the dialect the spec
 * names). The runtime needs nothing beyond Node, so it does not validate by itself: a
 * project passes a `SchemaValidator` to `createServer({ validator })`. Two adapters, each
 * typed structurally (no import of either library here):
 * - `ajvSchemaValidator` over an Ajv 2020 instance: schemas compiled to code, the fastest
 *   checks, for Node, Bun and Deno;
 * - `cfworkerSchemaValidator` over @cfworker/json-schema's `Validator` class: schemas
 *   interpreted, for runtimes that forbid generating code (Cloudflare Workers).
 */

import { assertSchemaShape } from "./schema-shape.js";

/** One value checked: valid, or the violations as short lines ("/path message"). */
export type ValidationResult = { readonly valid: true } | { readonly valid: false; readonly errors: readonly string[] };
export type CompiledSchema = (value: unknown) => ValidationResult;

export interface SchemaValidator {
  /**
   * Prepares a schema for repeated checks. Throws when the schema itself is unusable, for
   * example a `$ref` it cannot resolve: such a schema is refused, not treated as permissive,
   * and network `$ref`s must never be fetched (the spec's `$ref` resolution rule).
   */
  compile(schema: object): CompiledSchema;
}

/** What `ajvSchemaValidator` needs of an Ajv instance (Ajv 8's `ajv/dist/2020` build). */
export interface AjvLike {
  compile(schema: object): AjvValidateFunction;
}
export interface AjvValidateFunction {
  (data: unknown): boolean;
  errors?: readonly { instancePath: string; message?: string }[] | null;
}

/** Errors reported per failed check; more would only lengthen the message. */
const MAX_REPORTED_ERRORS = 10;

/** A SchemaValidator over an Ajv 2020 instance, e.g. `ajvSchemaValidator(new Ajv2020({ strict: false }))`. */
export function ajvSchemaValidator(ajv: AjvLike): SchemaValidator {
  return {
    compile(schema) {
      const validate = ajv.compile(schema);
      return (value) => {
        const infinite = nonFiniteRefusal(value);
        if (infinite !== undefined) return infinite;
        if (validate(value)) return VALID;
        const errors = (validate.errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`);
        return { valid: false, errors: errors.length > 0 ? errors : ["/ is invalid"] };
      };
    },
  };
}

/**
 * A SchemaValidator that makes the real one (`load`, called once) only when a value is first
 * checked, and compiles each schema on its first check: a server then answers `initialize`,
 * `server/discover` and its lists without paying for its validator (Ajv's instance and its
 * compile of the 2020-12 meta-schema are a large part of a stdio server's start). Each schema
 * is still checked when given (every keyword's value, schema-shape.ts; every `$ref` local and
 * resolvable), so a malformed one is refused at `addTool` as before; what only the library
 * would refuse fails that schema's first check instead.
 */
export function lazySchemaValidator(load: () => SchemaValidator): SchemaValidator {
  let loaded: SchemaValidator | undefined;
  return {
    compile(schema) {
      assertSchemaShape(schema);
      assertLocalRefs(schema);
      let compiled: CompiledSchema | undefined;
      return (value) => (compiled ??= (loaded ??= load()).compile(schema))(value);
    },
  };
}

/** What `cfworkerSchemaValidator` needs of @cfworker/json-schema (4.x): its `Validator` class. */
export interface CfworkerValidatorClass {
  new (
    schema: object,
    draft: "2020-12",
    shortCircuit: boolean,
  ): {
    validate(value: unknown): { valid: boolean; errors: readonly { instanceLocation: string; error: string }[] };
  };
}

/**
 * A SchemaValidator over @cfworker/json-schema, e.g. `cfworkerSchemaValidator(Validator)`.
 * That library resolves a `$ref` only when a value reaches it, and takes any keyword value;
 * here every `$ref` is resolved and every keyword's value checked (schema-shape.ts) at
 * compile instead, so a schema with a dangling or remote `$ref`, or `required: "a"`, is
 * refused at `addTool`, as with Ajv, rather than failing or misleading a call later.
 */
export function cfworkerSchemaValidator(Validator: CfworkerValidatorClass): SchemaValidator {
  return {
    compile(schema) {
      assertSchemaShape(schema);
      assertLocalRefs(schema);
      const validator = new Validator(schema, "2020-12", false);
      return (value) => {
        const infinite = nonFiniteRefusal(value);
        if (infinite !== undefined) return infinite;
        const result = validator.validate(value);
        if (result.valid) return VALID;
        const errors = innermost(result.errors)
          .slice(0, MAX_REPORTED_ERRORS)
          .map((unit) => `${unit.instanceLocation.replace(/^#/, "") || "/"} ${unit.error}`);
        return { valid: false, errors: errors.length > 0 ? errors : ["/ is invalid"] };
      };
    },
  };
}

/**
 * JSON has no Infinity, yet JSON.parse reads a number too large for a double (`1e309`) as
 * Infinity, and both libraries take that for a number and an integer (and `-1e309` for one
 * under any `maximum`): a handler would get a value no schema meant. Every check refuses a
 * non-finite number first, as a violation at its place. Returns undefined when there is none.
 */
export function nonFiniteRefusal(value: unknown): Extract<ValidationResult, { valid: false }> | undefined {
  const place = nonFinitePlace(value);
  return place === undefined ? undefined : { valid: false, errors: [`${place} must be a finite number`] };
}

/** Nesting past which a walk keeps the objects it visited: data that deep may be a cycle. */
const PLAIN_WALK_DEPTH = 256;

/**
 * The JSON pointer of the first non-finite number in `value`, or undefined. A first walk
 * only looks, builds no path and keeps no set (one visit per value, the common case); the
 * place is found by a second walk, which keeps a set of the objects it visited so that a
 * cycle (possible in a handler's output) cannot loop, only when the first found one or
 * went deeper than PLAIN_WALK_DEPTH. Both walk with a list, not recursion, so that deeply
 * nested input cannot overflow the stack.
 */
function nonFinitePlace(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "/";
  if (value === null || typeof value !== "object" || plainWalk(value) === "finite") return undefined;
  const pending: { node: object; place: string }[] = [{ node: value, place: "" }];
  const seen = new Set<object>([value]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const [key, child] of Object.entries(next.node)) {
      if (typeof child === "number" && !Number.isFinite(child)) return `${next.place}/${escapePointer(key)}`;
      if (child !== null && typeof child === "object" && !seen.has(child)) {
        seen.add(child);
        pending.push({ node: child, place: `${next.place}/${escapePointer(key)}` });
      }
    }
  }
  return undefined;
}

/** "finite" when every number in `root` is, "look" when one is not or the data nests too deep to tell cheaply. */
function plainWalk(root: object): "finite" | "look" {
  const pending: object[] = [root];
  const depths: number[] = [0];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const depth = depths.pop()! + 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "number") {
        if (!Number.isFinite(child)) return "look";
      } else if (child !== null && typeof child === "object") {
        if (depth > PLAIN_WALK_DEPTH) return "look";
        pending.push(child);
        depths.push(depth);
      }
    }
  }
  return "finite";
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * @cfworker/json-schema reports a failure at every level it passed through ("Property "a"
 * does not match schema." at the root, then the reason at /a): the last unit at each place
 * that holds no deeper failure says what is wrong there.
 */
function innermost<Unit extends { instanceLocation: string }>(units: readonly Unit[]): Unit[] {
  const last = new Map<string, Unit>();
  for (const unit of units) last.set(unit.instanceLocation, unit);
  const places = [...last.keys()];
  return places.filter((place) => !places.some((other) => other.startsWith(`${place}/`))).map((place) => last.get(place)!);
}

/** Keywords whose values are instances, not schemas: a `$ref` key inside one is data. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"]);

/** Throws unless every `$ref` in `schema` names a JSON pointer or an `$anchor` within it. */
function assertLocalRefs(schema: object): void {
  const anchors = new Set<string>();
  const refs: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const record = node as Record<string, unknown>;
    if (typeof record["$anchor"] === "string") anchors.add(record["$anchor"]);
    if (typeof record["$ref"] === "string") refs.push(record["$ref"]);
    for (const [key, value] of Object.entries(record)) if (!DATA_KEYWORDS.has(key)) visit(value);
  };
  visit(schema);
  for (const ref of refs) {
    const found = ref.startsWith("#/") || ref === "#" ? pointerTarget(schema, ref.slice(1)) !== undefined : ref.startsWith("#") && anchors.has(ref.slice(1));
    if (!found) throw new Error(`$ref ${JSON.stringify(ref)} does not resolve within the schema`);
  }
}

/** The value at a JSON pointer (RFC 6901, URI fragment form) in `root`, or undefined. */
function pointerTarget(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const VALID: ValidationResult = Object.freeze({ valid: true });
