import type { Shape, ShapesIR } from "./ir-model.js";
import { propertyKey, stringLiteral, valueLiteral } from "../toolbox/escape.js";

/**
 * shapes.ts: the revision's shapes (ir-shapes.ts) as data the runtime reads to trim an
 * answer to what this revision defines. Keys and strings go through toolbox/escape.ts, so no
 * character of the schema can end a literal early; the formatter lays the file out.
 */
export function emitShapes(revision: string, shapes: ShapesIR): string {
  return [
    `/**
 * A value's shape, as far as trimming an answer to what this revision defines, and checking
 * that it holds what this revision requires, need: \`true\` anything, taken whole; a name, that
 * entry of SHAPES (absent: anything); \`keys\`, an object with these properties (and, when
 * \`open\`, any others; \`required\`, those it must hold); \`items\`, an array; \`byType\`, a
 * union of objects told apart by their \`type\` property.
 */
export type Shape =
  | true
  | string
  | { readonly keys: { readonly [key: string]: Shape }; readonly open?: true; readonly required?: readonly string[] }
  | { readonly items: Shape }
  | { readonly byType: { readonly [type: string]: Shape } };
`,
    table("SHAPES_REVISION", "The revision these shapes describe.", "string", stringLiteral(revision)),
    table("SHAPES", "Named shapes, by definition name.", "{ readonly [name: string]: Shape }", record(shapes.named.map(({ name, shape }) => [name, shape]))),
    table("RESULT_SHAPES", "The result of each request a client sends, by method.", "{ readonly [method: string]: Shape }", byMethod(shapes.results)),
    table(
      "SERVER_REQUEST_SHAPES",
      "The params of each request a server sends, by method.",
      "{ readonly [method: string]: Shape }",
      byMethod(shapes.serverRequests),
    ),
    table(
      "SERVER_REQUEST_TAGS",
      "Per server request, the params keys a `const` fixes: which form the request takes, not what it carries.",
      "{ readonly [method: string]: readonly string[] }",
      `{ ${shapes.serverRequestTags.map(({ method, keys }) => `${propertyKey(method)}: ${valueLiteral(keys)}`).join(", ")} }`,
    ),
    table(
      "SERVER_NOTIFICATION_SHAPES",
      "The params of each notification a server sends, by method.",
      "{ readonly [method: string]: Shape }",
      byMethod(shapes.serverNotifications),
    ),
  ].join("\n");
}

function table(name: string, doc: string, type: string, value: string): string {
  return `/** ${doc} */\nexport const ${name}: ${type} = ${value};\n`;
}

function byMethod(entries: ReadonlyArray<{ method: string; shape: Shape }>): string {
  return record(entries.map(({ method, shape }) => [method, shape]));
}

function record(entries: ReadonlyArray<readonly [string, Shape]>): string {
  return `{ ${entries.map(([key, shape]) => `${propertyKey(key)}: ${valueLiteral(shape)}`).join(", ")} }`;
}
