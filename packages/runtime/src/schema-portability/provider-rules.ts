/**
 * What the major model providers accept of a tool's JSON Schema, as their documentation (or,
 * where marked, their API's own error messages) states it. Clients hand a tool's schemas to a
 * model; a keyword outside the provider's subset either fails the whole request or is
 * stripped on the way, and the tool is then never called, or called with arguments its
 * schema did not describe. One row per rule: `lintToolSchemas` (lint.ts) applies them all.
 *
 * A rule found only in third-party summaries is marked `unconfirmed`, and reported as such.
 * What a provider leaves unsaid is not a rule here.
 */

/** The providers (and modes) the table covers. */
export type ProviderId = "gemini" | "openai-strict" | "anthropic";

/** What happens to a schema that breaks the rule: the request fails, or the part is lost. */
export type RuleEffect = "rejected" | "dropped";

/** What a rule looks at, in every subschema unless it says `root`. */
export type RuleCheck =
  /** Any keyword not in the provider's list. */
  | { readonly kind: "outside"; readonly allowed: readonly string[] }
  /** Any of these keywords. */
  | { readonly kind: "keywords"; readonly keywords: readonly string[] }
  /** `type` given as an array (`["string", "null"]`). */
  | { readonly kind: "type-list" }
  /** An `enum` holding anything but strings. */
  | { readonly kind: "non-string-enum" }
  /** An object schema without `additionalProperties: false`. */
  | { readonly kind: "open-object" }
  /** A property not listed in its object's `required`. */
  | { readonly kind: "optional-property" }
  /** The root schema is a union (`anyOf`). */
  | { readonly kind: "root-union" }
  /** The root schema is not `type: "object"`. */
  | { readonly kind: "root-not-object" };

export interface ProviderRule {
  readonly provider: ProviderId;
  readonly check: RuleCheck;
  readonly effect: RuleEffect;
  /** What the provider does, in the report's words. */
  readonly says: string;
  /** The documentation (or API error) the rule comes from. */
  readonly source: string;
  /** Found only in third-party summaries of the provider's documentation. */
  readonly unconfirmed?: true;
}

/**
 * The Gemini API's `Schema` (function declarations' `parameters`): "a select subset of an
 * OpenAPI 3.0 schema object". The field list is the one Google's Schema reference gives
 * (the same message in the Vertex AI v1 reference: type, format, title, description,
 * nullable, enum, items, properties, required, propertyOrdering, anyOf, minimum, maximum,
 * minItems, maxItems, minLength, maxLength, pattern, minProperties, maxProperties, default,
 * example). Vertex AI's v1 message also has `additionalProperties`, `ref` and `defs` (no `$`):
 * the Gemini API answers `additionalProperties` with "Unknown name", so it is not listed.
 */
const GEMINI_SCHEMA_FIELDS = [
  "type", "format", "title", "description", "nullable", "enum", "items", "properties", "required", "propertyOrdering",
  "anyOf", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minProperties",
  "maxProperties", "default", "example",
] as const; // prettier-ignore

export const PROVIDER_RULES: readonly ProviderRule[] = [
  // https://ai.google.dev/api/caching#Schema ("Represents a select subset of an OpenAPI 3.0
  // schema object"; the fields above) and https://ai.google.dev/gemini-api/docs/function-calling
  // (parameters "Reflects the Open API 3.03 Parameter Object"). The API refuses any other name
  // with 400 "Invalid JSON payload received. Unknown name ... Cannot find field" (quoted for
  // `const` and `additionalProperties` in zed-industries/zed#45552, for `$schema` in
  // promptfoo/promptfoo#4200), and `$defs`/`$ref` with "reference to undefined schema"
  // (google-gemini/gemini-cli#13326).
  {
    provider: "gemini",
    check: { kind: "outside", allowed: GEMINI_SCHEMA_FIELDS },
    effect: "rejected",
    says: "function declarations take an OpenAPI 3.0 subset; any other keyword fails the request (400 Unknown name)",
    source: "https://ai.google.dev/api/caching#Schema",
  },
  // Same page: `type` is one enum value (STRING, OBJECT, ...), with `nullable` for null; a list
  // is refused ("Proto field is not repeating, cannot start list", n8n-io/n8n#15553).
  {
    provider: "gemini",
    check: { kind: "type-list" },
    effect: "rejected",
    says: "`type` is a single value (use nullable: true for null); a list fails the request",
    source: "https://ai.google.dev/api/caching#Schema",
  },
  // Same page: `enum` is a list of strings ("Possible values of the element of primitive type
  // with enum format", in the Vertex AI v1 reference of the same message).
  {
    provider: "gemini",
    check: { kind: "non-string-enum" },
    effect: "rejected",
    says: "`enum` holds strings only",
    source: "https://ai.google.dev/api/caching#Schema",
  },
  // https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, which
  // function calling with `strict: true` follows: additionalProperties must be false on every
  // object; the API answers "'additionalProperties' is required to be supplied and to be false"
  // (quoted in letta-ai/letta#3137). The guide was read through quotations of it (scaleway's
  // and others' docs), not directly; the error message confirms the rule.
  {
    provider: "openai-strict",
    check: { kind: "open-object" },
    effect: "rejected",
    says: "strict mode needs additionalProperties: false on every object",
    source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
  },
  // Same page: every field of `properties` must be listed in `required` (an optional one is
  // written as required, with a union with null); stated alike by every quotation found.
  {
    provider: "openai-strict",
    check: { kind: "optional-property" },
    effect: "rejected",
    says: "strict mode needs every property listed in required (optional ones as a union with null)",
    source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
  },
  // Same page: the root must be an object and not anyOf (found only in a third-party summary
  // of the guide: unconfirmed).
  {
    provider: "openai-strict",
    check: { kind: "root-union" },
    effect: "rejected",
    says: "strict mode refuses a root schema that is anyOf",
    source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
    unconfirmed: true,
  },
  // Same page, "Some type-specific keywords are not yet supported": composition by allOf, not,
  // if/then/else, dependentRequired and dependentSchemas; `oneOf` is answered "'oneOf' is not
  // permitted" (quoted in can1357/oh-my-pi#920). The page itself was read through quotations
  // of it, not directly: marked unconfirmed. `$defs`/`$ref` and anyOf are supported there.
  {
    provider: "openai-strict",
    check: { kind: "keywords", keywords: ["oneOf", "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"] },
    effect: "rejected",
    says: "strict mode does not support this composition keyword",
    source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
    unconfirmed: true,
  },
  // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use: a tool's
  // `input_schema` is "a JSON Schema object defining the expected parameters", of type object.
  // Anthropic lists no keyword subset for tools without `strict`; the limits of strict tool use
  // (no recursive schemas, no numeric bounds) were found only in third-party summaries and are
  // left out.
  {
    provider: "anthropic",
    check: { kind: "root-not-object" },
    effect: "rejected",
    says: "input_schema must be a JSON Schema of type object",
    source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
  },
];
