/** The one tool every server in the tools/call bench serves: same name, schemas and answer. */
export const TOOL_NAME = "forecast";
export const INPUT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object" as const,
  properties: {
    city: { type: "string", minLength: 1, maxLength: 100 },
    days: { type: "integer", minimum: 1, maximum: 14 },
    units: { type: "string", enum: ["metric", "imperial"] },
  },
  required: ["city", "days"],
  additionalProperties: false,
};
export const OUTPUT_SCHEMA = {
  type: "object" as const,
  properties: { city: { type: "string" }, temperatures: { type: "array", items: { type: "number" } } },
  required: ["city", "temperatures"],
};
export const ARGUMENTS = { city: "Oslo", days: 3, units: "metric" };

export function answer(args: Record<string, unknown>) {
  const structuredContent = { city: String(args.city), temperatures: Array.from({ length: Number(args.days) }, (_, day) => 20 + day) };
  return { content: [{ type: "text" as const, text: JSON.stringify(structuredContent) }], structuredContent };
}
