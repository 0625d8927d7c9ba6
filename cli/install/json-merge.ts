/**
 * Puts one server entry into a client's JSON (or JSONC) configuration by splicing text:
 * the entry's value is replaced, or a member is added after the last one of its object, in
 * the file's own indentation and line endings. Everything else in the file is kept as it
 * was, comments and key order included.
 */
import { JsonSyntaxError, memberNamed, parseJson, plainValue, type JsonDialect, type JsonObject } from "./jsonc.js";

export type EntryChange = "added" | "replaced" | "unchanged";

export interface MergedText {
  text: string;
  change: EntryChange;
}

/** How inserted text is laid out: the file's indent unit and line ending. */
interface Layout {
  unit: string;
  eol: string;
}

/**
 * `text` with `entry` under the key `key` of the object at `path` (created where missing).
 * An equal entry (same members, in any order) leaves the text as it is.
 */
export function mergeJsonEntry(text: string, dialect: JsonDialect, path: readonly string[], key: string, entry: unknown): MergedText {
  const layout = layoutOf(text);
  if (text.replace(/^\uFEFF/, "").trim() === "") {
    return { text: `${renderJson(nested([...path, key], entry), layout.unit, "", layout.eol)}${layout.eol}`, change: "added" };
  }
  let object = parseJson(text, dialect);
  if (object.kind !== "object") throw new JsonSyntaxError("the file holds no JSON object", object.start);
  for (const [index, name] of path.entries()) {
    const member = memberNamed(object, name);
    if (member === undefined) return { text: insertMember(text, object, name, nested([...path.slice(index + 1), key], entry), layout), change: "added" };
    if (member.value.kind !== "object") throw new JsonSyntaxError(`"${path.slice(0, index + 1).join(".")}" is not an object`, member.value.start);
    object = member.value;
  }
  const existing = memberNamed(object, key);
  if (existing === undefined) return { text: insertMember(text, object, key, entry, layout), change: "added" };
  if (canonical(plainValue(existing.value)) === canonical(entry)) return { text, change: "unchanged" };
  const rendered = startsLine(text, existing.keyStart) ? renderJson(entry, layout.unit, lineIndent(text, existing.keyStart), layout.eol) : inlineJson(entry);
  return { text: splice(text, existing.value.start, existing.value.end, rendered), change: "replaced" };
}

/** `value` under the keys of `path`, outermost first. */
function nested(path: readonly string[], value: unknown): unknown {
  return path.reduceRight((inner, name) => ({ [name]: inner }), value);
}

/**
 * `text` with the member `key: value` added to `object`: after its last member, on a line
 * of its own at that member's indentation (or on the same line, when the object's members
 * share one); in an empty object, on a line between its braces.
 */
function insertMember(text: string, object: JsonObject, key: string, value: unknown, layout: Layout): string {
  const last = object.members.at(-1);
  const close = object.end - 1;
  if (last === undefined) {
    const outer = lineIndent(text, object.start);
    const inner = text.slice(object.start + 1, close).trimEnd();
    const member = `${JSON.stringify(key)}: ${renderJson(value, layout.unit, outer + layout.unit, layout.eol)}`;
    return splice(text, object.start + 1, close, `${inner}${layout.eol}${outer}${layout.unit}${member}${layout.eol}${outer}`);
  }
  const comma = commaAfter(text, last.value.end, close);
  if (!startsLine(text, last.keyStart)) {
    const at = comma ?? last.value.end;
    return splice(text, at, at, `${comma === undefined ? "," : ""} ${JSON.stringify(key)}: ${inlineJson(value)}`);
  }
  const indent = lineIndent(text, last.keyStart);
  // After whatever follows the last member on its lines (its comma, a comment), before the close's own indentation.
  let at = close;
  while (at > last.value.end && /\s/.test(text[at - 1]!)) at--;
  const member = `${layout.eol}${indent}${JSON.stringify(key)}: ${renderJson(value, layout.unit, indent, layout.eol)}`;
  const withMember = splice(text, at, at, member);
  return comma === undefined ? splice(withMember, last.value.end, last.value.end, ",") : withMember;
}

/** Where the comma after a value is, between `from` and `to`, past spaces and comments; undefined when there is none. */
function commaAfter(text: string, from: number, to: number): number | undefined {
  let at = from;
  while (at < to) {
    if (/\s/.test(text[at]!)) at++;
    else if (text.startsWith("//", at)) at = text.indexOf("\n", at) < 0 ? to : text.indexOf("\n", at);
    else if (text.startsWith("/*", at)) at = text.indexOf("*/", at) + 2;
    else return text[at] === "," ? at : undefined;
  }
  return undefined;
}

/** The file's indent unit (its first indented line's, else two spaces) and line ending. */
function layoutOf(text: string): Layout {
  const unit = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  return { unit: unit.startsWith("\t") ? "\t" : unit, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** The spaces and tabs that start the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** True when only spaces and tabs come before `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t\uFEFF]*$/.test(text.slice(lineStart, offset));
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

const STRING = String.raw`"(?:[^"\\\n]|\\.)*"`;
const STRING_ARRAY = new RegExp(String.raw`\[\s+(${STRING}(?:,\s+${STRING})*)\s+\]`, "g");

/**
 * `value` as JSON laid out in `unit` steps, its later lines starting with `indent`; an
 * array of strings stays on one line, as people write `"args"` by hand.
 */
export function renderJson(value: unknown, unit: string, indent: string, eol = "\n"): string {
  return JSON.stringify(value, null, unit)
    .replace(STRING_ARRAY, (_all, items: string) => `[${items.match(new RegExp(STRING, "g"))!.join(", ")}]`)
    .split("\n")
    .join(`${eol}${indent}`);
}

/** `value` as JSON on one line, with a space inside braces and after commas: `{ "url": "..." }`. */
export function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(", ")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${inlineJson(item)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}

/** JSON text of `value` with every object's keys sorted, so equal entries compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`;
}
