import { CliError } from "../errors.js";
import type { SchemaIR } from "./ir.js";
import { loadJsonSchemaToTypescript } from "./libraries.js";
import { isObject, type JsonObject, type JsonValue } from "./normalize.js";

/**
 * types.ts through json-schema-to-typescript, one definition at a time. Every `$ref` is
 * handed over as a `tsType` naming the referenced definition (its description kept for the
 * doc comment), so the library never dereferences and never invents `Foo1` copies for refs
 * with sibling keywords; each call therefore declares exactly one type, named by its key.
 */
export async function emitTypes(ir: SchemaIR): Promise<string> {
  const { compile } = loadJsonSchemaToTypescript();
  const declarations = await Promise.all(
    ir.definitions.map(async ({ name, schema }) => {
      const input = { ...(refsAsNamedTypes(schema) as JsonObject), title: name };
      const code = await compile(input as never, name, {
        bannerComment: "",
        format: false,
        additionalProperties: false,
        declareExternallyReferenced: false,
        strictIndexSignatures: true,
      });
      assertDeclaresExactly(code, name);
      return code.trim();
    }),
  );
  return `${declarations.join("\n\n")}\n`;
}

function refsAsNamedTypes(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(refsAsNamedTypes);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") out.tsType = value.replace("#/$defs/", "");
    else out[key] = refsAsNamedTypes(value);
  }
  return out;
}

/** Every $defs name is accounted for: its own declaration, no copy, nothing extra. */
function assertDeclaresExactly(code: string, name: string): void {
  const declared = [...code.matchAll(/^export (?:type|interface|enum|const enum) (\w+)/gm)].map((match) => match[1]);
  if (declared.length !== 1 || declared[0] !== name) {
    throw new CliError(`$defs.${name} produced declarations [${declared.join(", ")}] instead of exactly ${name}`, {
      hint: "this definition has a shape json-schema-to-typescript names differently; report it with the schema",
    });
  }
}
