import { createRequire } from "node:module";
import { CliError } from "../errors.js";
import type { SchemaIR } from "./ir-model.js";
import { isObject, type JsonObject, type JsonValue } from "./normalize.js";
import { commentText } from "../toolbox/escape.js";

/**
 * json-schema-to-typescript is CommonJS and loaded through `require`, when first needed:
 * `import()` of a CommonJS package makes Node scan its source for export names first.
 */
const require = createRequire(import.meta.url);
const loadJsonSchemaToTypescript = (): typeof import("json-schema-to-typescript") => require("json-schema-to-typescript");

/**
 * types.ts through json-schema-to-typescript, in one call: every definition becomes a titled
 * property of a throwaway root type, so the library declares each under its own name (a call
 * per definition prints the same declarations at three times the cost: each call pays the
 * library's whole setup). Every `$ref` is handed over as a `tsType` naming the referenced
 * definition (its description kept for the doc comment), so the library never dereferences
 * and never invents `Foo1` copies for refs with sibling keywords. The declarations come back
 * in the IR's order, the root dropped.
 */
export async function emitTypes(ir: SchemaIR): Promise<string> {
  const { compile } = loadJsonSchemaToTypescript();
  const names = ir.definitions.map(({ name }) => name);
  const root = rootName(names);
  const properties: JsonObject = {};
  for (const { name, schema } of ir.definitions)
    properties[name] = { ...(refsAsNamedTypes(anyAsUnknown(inlineTitlesAsDocs(schema))) as JsonObject), title: name };
  const code = await compile({ title: root, type: "object", properties, additionalProperties: false } as never, root, {
    bannerComment: "",
    format: false,
    additionalProperties: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
    // Every $ref is already a named tsType (refsAsNamedTypes), so the library's reference
    // resolution has nothing to find; skip its two walks over the whole schema, which cost
    // more than the rest of the compile.
    $refOptions: { resolve: { external: false }, dereference: { excludedPathMatcher: () => true } },
  });
  const declarations = declarationsByName(code);
  assertDeclaresExactly([...declarations.keys()], [...names, root]);
  return `${names.map((name) => declarations.get(name)).join("\n\n")}\n`;
}

/** A name for the root type that no definition has. */
function rootName(names: readonly string[]): string {
  const taken = new Set(names);
  let root = "McpGenDefinitions";
  while (taken.has(root)) root += "_";
  return root;
}

/** Keywords that say what values a schema takes; a schema with none of them takes any JSON value. */
const TYPE_KEYWORDS = [
  "type",
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "enum",
  "const",
  "not",
  "properties",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
];
const SUBSCHEMA_MAPS = ["properties", "patternProperties"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/**
 * A schema such as `{ "description": ... }` (the `data` of an error or a log message) takes
 * any JSON value, but the library declares it as an object with an index signature; it is
 * handed over as `unknown`. Only schema positions are visited, never keyword values.
 */
function anyAsUnknown(schema: JsonObject): JsonObject {
  if (!TYPE_KEYWORDS.some((keyword) => keyword in schema)) return { ...schema, tsType: "unknown" };
  const out: JsonObject = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, isObject(sub) ? anyAsUnknown(sub) : sub]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((sub) => (isObject(sub) ? anyAsUnknown(sub) : sub));
  }
  if (isObject(schema.items)) out.items = anyAsUnknown(schema.items);
  return out;
}

/** Keywords whose value is a map of subschemas, a list of them, or one subschema. */
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
];

/**
 * json-schema-to-typescript declares every subschema that has a `title` as a type of that
 * name, beside the $defs' own. Only a definition names a type here: an inline subschema's
 * title becomes its doc comment when it has no description, and is dropped otherwise. The
 * definition's own title is left to emitTypes, which sets it to the definition's name.
 */
function inlineTitlesAsDocs(definition: JsonObject): JsonObject {
  const visit = (schema: JsonObject, inline: boolean): JsonObject => {
    const out: JsonObject = { ...schema };
    if (inline && "title" in out) {
      const { title, ...rest } = out;
      if (typeof title === "string" && typeof rest.description !== "string") rest.description = commentText(title);
      return visit(rest, false);
    }
    for (const key of SCHEMA_MAPS) {
      const map = schema[key];
      if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, isObject(sub) ? visit(sub, true) : sub]));
    }
    for (const key of SCHEMA_LISTS) {
      const list = schema[key];
      if (Array.isArray(list)) out[key] = list.map((sub) => (isObject(sub) ? visit(sub, true) : sub));
    }
    for (const key of SCHEMA_SINGLES) {
      const sub = schema[key];
      if (isObject(sub)) out[key] = visit(sub, true);
      else if (key === "items" && Array.isArray(sub)) out[key] = sub.map((item) => (isObject(item) ? visit(item, true) : item));
    }
    return out;
  };
  return visit(definition, false);
}

function refsAsNamedTypes(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(refsAsNamedTypes);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === "$ref" && typeof value === "string" ? ["tsType", value.replace("#/$defs/", "")] : [key, refsAsNamedTypes(value)],
    ),
  );
}

const DECLARATION = /^export (?:type|interface|enum|const enum) (\w+)/;

/**
 * Splits the library's unformatted output into its top-level declarations, each with the doc
 * comment right above it. Only declarations start a line with `export` (members and comment
 * lines never do), and a doc comment's last line is ` *\/`.
 */
function declarationsByName(code: string): Map<string, string> {
  const lines = code.trimEnd().split("\n");
  const starts: number[] = [];
  lines.forEach((line, index) => {
    if (!DECLARATION.test(line)) return;
    let start = index;
    if (lines[index - 1] === " */") while (start > 0 && !lines[--start].startsWith("/**"));
    starts.push(start);
  });
  const declarations = new Map<string, string>();
  starts.forEach((start, k) => {
    const text = lines
      .slice(start, starts[k + 1] ?? lines.length)
      .join("\n")
      .trim();
    const name = DECLARATION.exec(text.slice(text.search(/^export /m)))![1];
    declarations.set(declarations.has(name) ? `${name} (again)` : name, text);
  });
  return declarations;
}

/** Every $defs name is accounted for: its own declaration, no copy, nothing extra. */
function assertDeclaresExactly(declared: readonly string[], expected: readonly string[]): void {
  const wanted = new Set(expected);
  const extra = declared.filter((name) => !wanted.delete(name));
  const problems = [
    ...(extra.length > 0 ? [`declared [${extra.join(", ")}] beyond the $defs`] : []),
    ...(wanted.size > 0 ? [`declared nothing for [${[...wanted].join(", ")}]`] : []),
  ];
  if (problems.length > 0) {
    throw new CliError(`json-schema-to-typescript ${problems.join(" and ")}`, {
      hint: "a definition has a shape json-schema-to-typescript names differently; report it with the schema",
    });
  }
}
