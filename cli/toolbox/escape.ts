/**
 * Text from a schema or a peer (a tool's name, a description, a definition's name, an
 * extension's identifier), made safe for the one place it lands: generated TypeScript (an
 * identifier, a string literal, a property key, a comment) or a person's terminal. Every
 * such string goes through one of these functions, so none can end its literal or comment
 * early, run as code, or drive the terminal. Text mcp-gen writes itself needs none of this.
 */

/** C0 controls but tab, DEL and C1 controls: nothing a reader means to see. */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** What JavaScript and TypeScript take for the end of a line (ending a `//` comment). */
const LINE_BREAKS = /\r\n|[\n\r\u2028\u2029]/g;
/** Characters that reorder or hide text around them when shown (bidirectional overrides and isolates). */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** `\u001b`, as a reader would type it. */
function escapeCode(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Text for a multi-line doc comment (its lines are split on `\n` and prefixed with ` * `):
 * `*\/` cannot close it, every line break is `\n`, controls are written out as escapes.
 */
export function commentText(text: string): string {
  return text.replace(LINE_BREAKS, "\n").replace(CONTROLS, escapeCode).replaceAll("*/", "*\\/");
}

/** Text for a comment on one line (`// ...` or `/** ... *\/`): line breaks are written out as escapes too. */
export function lineCommentText(text: string): string {
  return text
    .replace(/[\n\r\u2028\u2029]/g, escapeCode)
    .replace(CONTROLS, escapeCode)
    .replaceAll("*/", "*\\/");
}

/** A string literal holding `text` exactly, that no embedding (a `<script>`, an old parser) ends early. */
export function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/[\u2028\u2029]/g, escapeCode)
    .replaceAll("</", "<\\/");
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A key in an object literal or a type: bare when it is an identifier, else a string
 * literal. `__proto__` is computed (`["__proto__"]`): written plainly in an object literal
 * it would set the object's prototype instead of a property.
 */
export function propertyKey(key: string): string {
  if (key === "__proto__") return `[${stringLiteral(key)}]`;
  return IDENTIFIER.test(key) ? key : stringLiteral(key);
}

/** A JSON value as a TypeScript expression, every key and string through the functions above. */
export function valueLiteral(value: unknown): string {
  if (typeof value === "string") return stringLiteral(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(valueLiteral).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, member]) => member !== undefined);
    return entries.length === 0 ? "{}" : `{ ${entries.map(([key, member]) => `${propertyKey(key)}: ${valueLiteral(member)}`).join(", ")} }`;
  }
  return "null";
}

/**
 * Whether `name` can be a generated type's name as it is: ASCII letters and digits, starting
 * with a capital, and a capital after every digit. json-schema-to-typescript renames any
 * other name it declares (`3d` -> `3D`), and no such name is a reserved word.
 */
export function isTypeName(name: string): boolean {
  return /^[A-Z][A-Za-z0-9]*$/.test(name) && !/[0-9][a-z]/.test(name);
}

/** A type name (see isTypeName) made of any text's letters and digits: `3d_render` -> `Tool3DRender` with `prefix` "Tool". */
export function typeNameOf(text: string, prefix: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 0);
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  const name = joined.replace(/[0-9][a-z]/g, (pair) => pair.toUpperCase());
  return /^[A-Z]/.test(name) ? name : `${prefix}${name}`;
}

/** Hands out type names, each once: a name already taken gets the first free number after it. */
export class TypeNames {
  readonly #taken: Set<string>;

  constructor(taken: Iterable<string> = []) {
    this.#taken = new Set(taken);
  }

  has(name: string): boolean {
    return this.#taken.has(name);
  }

  /** `base` (a type name), or `base2`, `base3`, ... whichever is free; taken from then on. */
  claim(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}

/** Text for a terminal line: controls, line breaks and bidirectional overrides written out as escapes. */
export function terminalText(text: string): string {
  return text
    .replace(CONTROLS, escapeCode)
    .replace(/[\n\r\u2028\u2029]/g, escapeCode)
    .replace(BIDI, escapeCode);
}
