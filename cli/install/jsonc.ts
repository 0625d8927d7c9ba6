/**
 * A JSON reader that keeps where everything is: each value's start and end offsets in the
 * text, and each object member's key. `mcp-gen install` edits a client's configuration by
 * splicing text at those offsets, so whatever it does not touch (comments, spacing, key
 * order, the other servers) stays byte for byte. Comments and trailing commas are accepted
 * only for the clients that read them themselves.
 */

export interface JsonDialect {
  /** `//` and `/* *\/` comments (VS Code's JSONC, Gemini CLI's settings). */
  comments: boolean;
  /** A comma after an object's or array's last item (VS Code's JSONC). */
  trailingCommas: boolean;
}

export type JsonNode = JsonObject | JsonArray | JsonScalar;

interface Span {
  /** Offset of the value's first character. */
  start: number;
  /** Offset just past its last character. */
  end: number;
}

export interface JsonObject extends Span {
  kind: "object";
  members: JsonMember[];
}

export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export interface JsonArray extends Span {
  kind: "array";
  items: JsonNode[];
}

export interface JsonScalar extends Span {
  kind: "scalar";
  value: string | number | boolean | null;
}

/** How deep objects and arrays may nest: deeper is refused, before the reader's recursion could overflow the stack. */
export const MAX_JSON_DEPTH = 512;

/** Where and why a text is not JSON of the dialect. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(reason);
  }
}

/** The top-level value of `text`, with its offsets; anything else after it is refused. */
export function parseJson(text: string, dialect: JsonDialect): JsonNode {
  const reader = new Reader(text, dialect);
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.pos < text.length) throw new JsonSyntaxError("unexpected text after the value", reader.pos);
  return value;
}

/** The plain value a node stands for. */
export function plainValue(node: JsonNode): unknown {
  if (node.kind === "scalar") return node.value;
  if (node.kind === "array") return node.items.map(plainValue);
  const object: Record<string, unknown> = {};
  for (const member of node.members) object[member.key] = plainValue(member.value);
  return object;
}

/** The member a client reads for `key`: the last one, as JSON.parse keeps the last of repeated keys. */
export function memberNamed(object: JsonObject, key: string): JsonMember | undefined {
  return object.members.findLast((member) => member.key === key);
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: ReadonlyArray<[string, boolean | null]> = [
  ["true", true],
  ["false", false],
  ["null", null],
];

class Reader {
  pos = 0;

  constructor(
    private readonly text: string,
    private readonly dialect: JsonDialect,
  ) {}

  value(depth: number): JsonNode {
    this.skipSpace();
    const char = this.text[this.pos];
    if (char === "{" || char === "[") {
      if (depth >= MAX_JSON_DEPTH) throw new JsonSyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`, this.pos);
      return char === "{" ? this.object(depth + 1) : this.array(depth + 1);
    }
    const start = this.pos;
    if (char === '"') {
      const value = this.string();
      return { kind: "scalar", start, end: this.pos, value };
    }
    NUMBER.lastIndex = start;
    const number = NUMBER.exec(this.text);
    if (number) {
      this.pos += number[0].length;
      return { kind: "scalar", start, end: this.pos, value: Number(number[0]) };
    }
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, start)) {
        this.pos += word.length;
        return { kind: "scalar", start, end: this.pos, value };
      }
    }
    throw new JsonSyntaxError(char === undefined ? "the text ends where a value should be" : `unexpected ${JSON.stringify(char)}`, start);
  }

  private object(depth: number): JsonObject {
    const start = this.pos++;
    const members: JsonMember[] = [];
    let afterComma = false;
    for (;;) {
      this.skipSpace();
      if (this.closes("}", afterComma)) return { kind: "object", start, end: this.pos, members };
      if (this.text[this.pos] !== '"') throw new JsonSyntaxError("expected a quoted key", this.pos);
      const keyStart = this.pos;
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ":") throw new JsonSyntaxError("expected ':' after the key", this.pos);
      this.pos++;
      members.push({ key, keyStart, value: this.value(depth) });
      this.skipSpace();
      afterComma = this.text[this.pos] === ",";
      if (afterComma) this.pos++;
      else if (this.text[this.pos] !== "}") throw new JsonSyntaxError("expected ',' or '}'", this.pos);
    }
  }

  private array(depth: number): JsonArray {
    const start = this.pos++;
    const items: JsonNode[] = [];
    let afterComma = false;
    for (;;) {
      this.skipSpace();
      if (this.closes("]", afterComma)) return { kind: "array", start, end: this.pos, items };
      items.push(this.value(depth));
      this.skipSpace();
      afterComma = this.text[this.pos] === ",";
      if (afterComma) this.pos++;
      else if (this.text[this.pos] !== "]") throw new JsonSyntaxError("expected ',' or ']'", this.pos);
    }
  }

  /** True (past it) at `close`; a close right after a comma is a trailing comma, which the dialect may refuse. */
  private closes(close: string, afterComma: boolean): boolean {
    if (this.text[this.pos] !== close) return false;
    if (afterComma && !this.dialect.trailingCommas) throw new JsonSyntaxError("a trailing comma (this client does not read them)", this.pos);
    this.pos++;
    return true;
  }

  private string(): string {
    const start = this.pos++;
    for (;;) {
      const char = this.text[this.pos];
      if (char === undefined || char === "\n") throw new JsonSyntaxError("a string is not closed", start);
      if (char === '"') break;
      if (char < " ") throw new JsonSyntaxError("a control character inside a string", this.pos);
      if (char === "\\") {
        const escape = this.text[this.pos + 1];
        if (escape === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) throw new JsonSyntaxError("a bad \\u escape", this.pos);
          this.pos += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) throw new JsonSyntaxError("a bad escape in a string", this.pos);
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    this.pos++;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  /** Past whitespace, and comments where the dialect has them. */
  skipSpace(): void {
    for (;;) {
      const char = this.text[this.pos];
      if (char === " " || char === "\t" || char === "\n" || char === "\r") this.pos++;
      else if (char === "\uFEFF" && this.pos === 0) this.pos++;
      else if (char === "/" && (this.text[this.pos + 1] === "/" || this.text[this.pos + 1] === "*")) this.comment();
      else return;
    }
  }

  private comment(): void {
    if (!this.dialect.comments) throw new JsonSyntaxError("a comment (this client's file is plain JSON)", this.pos);
    if (this.text[this.pos + 1] === "/") {
      const end = this.text.indexOf("\n", this.pos);
      this.pos = end < 0 ? this.text.length : end;
      return;
    }
    const end = this.text.indexOf("*/", this.pos + 2);
    if (end < 0) throw new JsonSyntaxError("a comment is not closed", this.pos);
    this.pos = end + 2;
  }
}
