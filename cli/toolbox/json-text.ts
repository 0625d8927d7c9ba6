/**
 * One value of a JSON file (a package.json) replaced, added or removed in its text, every
 * other byte kept: the user's key order, layout and line endings stay as they wrote them.
 * What cannot be done that way is refused in one line before anything is written: text that
 * is not JSON, a path through something other than an object, a key its object repeats
 * (JSON.parse keeps the last, an edit of the text could take either), and, as a last guard,
 * an edited text that does not parse to the value the edit means.
 */
import { CliError } from "../errors.js";

/** The keys from the top-level object down to the value, e.g. ["dependencies", "@mcp-gen/runtime"]. */
export type JsonPath = readonly [string, ...string[]];

/** A member of an object, by offsets into the text: `"key": value`. */
interface Member {
  key: string;
  start: number;
  valueStart: number;
  end: number;
}

/** Where a path leads: the object that holds (or would hold) its last key, and that key's member when present. */
interface Found {
  members: Member[];
  /** The offset of the object's closing brace. */
  close: number;
  /** How many objects enclose the member: 1 for a top-level key. */
  depth: number;
  member: Member | undefined;
}

/**
 * `text` with the value at `path` replaced by `value`, or added as the last member of its
 * object when absent; written in the file's indentation and line endings, a list of strings
 * on one line.
 * `where` names the file in a refusal.
 */
export function withJsonValue(text: string, path: JsonPath, value: unknown, where: string): string {
  const expected = parsed(text, path, where);
  const found = locate(text, path, where);
  // Only the last key is added: an object on the way is the user's to make.
  if (found === undefined) refuse(where, path, "an object on the way to it is absent", "add it, then run this again");
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const rendered = render(value, indent, found.depth).split("\n").join(eol);
  let result: string;
  if (found.member) {
    result = text.slice(0, found.member.valueStart) + rendered + text.slice(found.member.end);
  } else {
    const body = text.slice(0, found.close).trimEnd();
    const comma = found.members.length === 0 ? "" : ",";
    const member = `${indent.repeat(found.depth)}${JSON.stringify(path.at(-1))}: ${rendered}`;
    result = `${body}${comma}${eol}${member}${eol}${indent.repeat(found.depth - 1)}${text.slice(found.close)}`;
  }
  parentOf(expected, path)[path.at(-1)!] = value;
  return checked(result, expected, path, where);
}

/**
 * `text` without the member at `path`: its key, its value and one comma, with the space
 * between them; the text as it was when there is no such member.
 */
export function withoutJsonValue(text: string, path: JsonPath, where: string): string {
  const expected = parsed(text, path, where);
  const found = locate(text, path, where);
  if (found?.member === undefined) return text;
  const { members, close, member } = found;
  const index = members.indexOf(member);
  const next = members[index + 1];
  const previous = members[index - 1];
  // Followed by another: up to that one's key, so the space before this key now leads it.
  // The last of several: from the end of the one before (its comma goes). The only one: the
  // object is left empty, `{}`.
  const [from, to] = next ? [member.start, next.start] : previous ? [previous.end, member.end] : [text.lastIndexOf("{", member.start) + 1, close];
  const result = text.slice(0, from) + text.slice(to);
  delete parentOf(expected, path)[path.at(-1)!];
  return checked(result, expected, path, where);
}

function refuse(where: string, keys: readonly string[], why: string, hint: string): never {
  throw new CliError(`${where}: cannot edit ${JSON.stringify(keys.join("."))} in place: ${why}`, { hint });
}

/** The text parsed, to compare the edit against; refused when it is not JSON. */
function parsed(text: string, path: JsonPath, where: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
  } catch {
    // refused below
  }
  return refuse(where, path, "the file is not a JSON object", "fix the file's syntax");
}

/** The object `path` ends in (created where the text will add it), in the parsed value. */
function parentOf(value: Record<string, unknown>, path: JsonPath): Record<string, unknown> {
  let parent = value;
  for (const key of path.slice(0, -1)) {
    if (!isObject(parent[key])) parent[key] = {};
    parent = parent[key] as Record<string, unknown>;
  }
  return parent;
}

/** The edited text, when it parses to what the edit means. */
function checked(result: string, expected: unknown, path: JsonPath, where: string): string {
  let actual: unknown;
  try {
    actual = JSON.parse(result);
  } catch {
    actual = undefined;
  }
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    refuse(where, path, "the edited text would not hold the same JSON with that one change", "make the change by hand");
  }
  return result;
}

/** Follows `path` from the top-level object: undefined when an object on the way is absent; refused through a non-object or a repeated key. */
function locate(text: string, path: JsonPath, where: string): Found | undefined {
  let open = skipSpace(text, 0);
  for (let depth = 1; ; depth++) {
    const { members, close } = membersOf(text, open);
    const keys = path.slice(0, depth);
    const matching = members.filter((member) => member.key === path[depth - 1]);
    if (matching.length > 1) refuse(where, keys, "its object repeats the key", "keep one of them, then run this again");
    const member = matching[0];
    if (depth === path.length) return { members, close, depth, member };
    if (member === undefined) return undefined;
    if (text[member.valueStart] !== "{") refuse(where, keys, "it is not an object", "make it an object, then run this again");
    open = member.valueStart;
  }
}

/** The members of the object whose `{` is at `open`, and the offset of its `}`; the text is known to be JSON. */
function membersOf(text: string, open: number): { members: Member[]; close: number } {
  const members: Member[] = [];
  let at = skipSpace(text, open + 1);
  while (text[at] === '"') {
    const keyEnd = stringEnd(text, at);
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, valueStart);
    members.push({ key: JSON.parse(text.slice(at, keyEnd)) as string, start: at, valueStart, end });
    at = skipSpace(text, end);
    if (text[at] === ",") at = skipSpace(text, at + 1);
  }
  return { members, close: at };
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && " \t\r\n".includes(text[at]!)) at++;
  return at;
}

/** The offset after the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** The offset after the value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  if (text[at] === '"') return stringEnd(text, at);
  if (text[at] !== "{" && text[at] !== "[") {
    let i = at;
    while (i < text.length && !",}] \t\r\n".includes(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const char = text[i];
    if (char === '"') i = stringEnd(text, i) - 1;
    else if (char === "{" || char === "[") depth++;
    else if ((char === "}" || char === "]") && --depth === 0) return i + 1;
  }
  return text.length;
}

/** `value` as JSON in the file's indentation, `depth` objects in; a list of strings on one line, as mcp-gen writes revision lists. */
function render(value: unknown, indent: string, depth: number): string {
  return JSON.stringify(value, null, indent)
    .replace(/\[\s+("[^"\n]*"(?:,\s+"[^"\n]*")*)\s+\]/g, (_all, items: string) => `[${items.split(/,\s+/).join(", ")}]`)
    .split("\n")
    .join(`\n${indent.repeat(depth)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
