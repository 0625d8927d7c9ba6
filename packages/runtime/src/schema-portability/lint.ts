/**
 * Checks tool schemas against the providers' subsets (provider-rules.ts): every subschema is
 * visited with its JSON pointer, and each rule that it breaks is one finding naming the tool,
 * the schema side, the provider, the keyword and the pointer. Pure data in, data out: the
 * CLI (`mcp-gen lint`) and a project's own test share it.
 */
import { PROVIDER_RULES, type ProviderId, type ProviderRule, type RuleEffect } from "./provider-rules.js";

export type SchemaSide = "inputSchema" | "outputSchema";

export interface SchemaFinding {
  readonly tool: string;
  readonly side: SchemaSide;
  readonly provider: ProviderId;
  /** The keyword at fault (`$defs`, `oneOf`, `additionalProperties`, ...). */
  readonly keyword: string;
  /** Where, as a JSON pointer into the side's schema ("" is its root). */
  readonly pointer: string;
  readonly effect: RuleEffect;
  readonly says: string;
  readonly source: string;
  readonly unconfirmed: boolean;
}

/** A tool as `tools/list` gives it, as far as the check reads it. */
export interface ListedTool {
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
}

/** Subschemas deeper than this are not visited (a listing is data; its depth is unbounded). */
export const MAX_LINT_DEPTH = 64;

/** Keywords whose value is one subschema, and those holding a map or a list of them. */
const ONE_SCHEMA = [
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];

export function lintToolSchemas(tools: readonly ListedTool[], rules: readonly ProviderRule[] = PROVIDER_RULES): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  for (const tool of tools) {
    for (const side of ["inputSchema", "outputSchema"] as const) {
      const schema = tool[side];
      if (schema === undefined) continue;
      for (const { pointer, node, root } of subschemas(schema)) {
        for (const rule of rules) {
          for (const keyword of broken(rule, node, root)) {
            findings.push({
              tool: tool.name,
              side,
              provider: rule.provider,
              keyword,
              pointer: keyword === "" ? pointer : `${pointer}/${escape(keyword)}`,
              effect: rule.effect,
              says: rule.says,
              source: rule.source,
              unconfirmed: rule.unconfirmed === true,
            });
          }
        }
      }
    }
  }
  return findings;
}

type SchemaNode = Readonly<Record<string, unknown>>;

/** Every object subschema with its pointer, the root first; bounded by MAX_LINT_DEPTH. */
function* subschemas(schema: unknown): Generator<{ pointer: string; node: SchemaNode; root: boolean }> {
  const pending: Array<{ pointer: string; node: unknown; depth: number }> = [{ pointer: "", node: schema, depth: 0 }];
  for (let next = 0; next < pending.length; next++) {
    const { pointer, node, depth } = pending[next]!;
    if (!isObject(node) || depth > MAX_LINT_DEPTH) continue;
    yield { pointer, node, root: depth === 0 };
    const visit = (value: unknown, at: string) => pending.push({ pointer: `${pointer}/${at}`, node: value, depth: depth + 1 });
    for (const keyword of ONE_SCHEMA) if (isObject(node[keyword])) visit(node[keyword], escape(keyword));
    for (const keyword of SCHEMA_MAPS) {
      const map = node[keyword];
      if (isObject(map)) for (const [name, value] of Object.entries(map)) visit(value, `${escape(keyword)}/${escape(name)}`);
    }
    for (const keyword of SCHEMA_LISTS) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((value, index) => visit(value, `${escape(keyword)}/${index}`));
    }
  }
}

/** The keywords of `node` that break `rule` ("" when the node itself does, with no one keyword). */
function broken(rule: ProviderRule, node: SchemaNode, root: boolean): string[] {
  const check = rule.check;
  switch (check.kind) {
    case "outside":
      return Object.keys(node).filter((keyword) => !check.allowed.includes(keyword));
    case "keywords":
      return check.keywords.filter((keyword) => keyword in node);
    case "type-list":
      return Array.isArray(node["type"]) ? ["type"] : [];
    case "non-string-enum":
      return Array.isArray(node["enum"]) && node["enum"].some((value) => typeof value !== "string") ? ["enum"] : [];
    case "open-object":
      return isObjectSchema(node) && node["additionalProperties"] !== false ? ["additionalProperties"] : [];
    case "optional-property": {
      const properties = isObject(node["properties"]) ? Object.keys(node["properties"]) : [];
      const required = Array.isArray(node["required"]) ? node["required"] : [];
      return properties.some((name) => !required.includes(name)) ? ["required"] : [];
    }
    case "root-union":
      return root && "anyOf" in node ? ["anyOf"] : [];
    case "root-not-object":
      return root && node["type"] !== "object" ? ["type"] : [];
  }
}

function isObjectSchema(node: SchemaNode): boolean {
  return node["type"] === "object" || (Array.isArray(node["type"]) && node["type"].includes("object")) || isObject(node["properties"]);
}

function isObject(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON pointer reference token (RFC 6901). */
function escape(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
