import { CliError } from "../errors.js";

/** The spellings of one validated name, each safe to use where its name says. */
export interface NameForms {
  /** `AuditLog`: classes, types. */
  pascal: string;
  /** `auditLog`: variables, functions. */
  camel: string;
  /** `audit-log`: file names, resource names and URIs. */
  kebab: string;
  /** `audit_log`: tool and prompt names, as MCP servers usually spell them. */
  snake: string;
}

const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;

// ECMAScript reserved and strict-mode words, plus TypeScript's own: a name is refused
// when any of its spellings is one of these.
const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "as implements interface let package private protected public static yield await async any boolean number " +
    "string symbol never unknown object undefined type declare namespace module abstract readonly keyof infer is " +
    "arguments eval constructor prototype"
  ).split(" "),
);

/** True for an ECMAScript or TypeScript reserved word, which no generated identifier may be. */
export function isReservedWord(word: string): boolean {
  return RESERVED_WORDS.has(word);
}

// Globals and runtime exports a generated class would shadow in the files it lands in.
const BUILT_IN_NAMES = new Set(
  (
    "Object Function Array String Number Boolean Symbol BigInt Error TypeError RangeError SyntaxError Promise Map " +
    "Set WeakMap WeakSet Date RegExp JSON Math Reflect Proxy Buffer Intl Iterator AbortController AbortSignal " +
    "EventTarget Event URL Record Partial Required Readonly Pick Omit Awaited " +
    "Server Transport Channel Stdio Http Test InProcess Ndjson NdjsonTransport StdioServerTransport " +
    "SubscriptionHandler EventSource InProcessEventSource TransportEvent TransportCapability StopReason"
  ).split(" "),
);

/**
 * Validates a PascalCase name given on the command line before it becomes a path or an
 * identifier, and returns its spellings. `what` names the thing in the error ("handler").
 */
export function validateName(name: string, what: string): NameForms {
  const refuse = (why: string, hint: string): never => {
    throw new CliError(`invalid ${what} name ${JSON.stringify(name)}: ${why}`, { hint, exitCode: 2 });
  };
  if (name.length === 0) refuse("it is empty", `give a PascalCase name such as Audit`);
  if (/[\\/.]/.test(name)) refuse("names are not paths", `give a bare PascalCase name such as Audit`);
  if (name.length > 64) refuse("it is longer than 64 characters", "choose a shorter name");
  if (!PASCAL_CASE.test(name)) {
    const suggestion = toPascal(name);
    refuse("use PascalCase: a capital letter, then letters and digits", suggestion ? `try ${suggestion}` : "give a PascalCase name such as Audit");
  }
  const kebab = toKebab(name);
  const forms: NameForms = { pascal: name, camel: name[0]!.toLowerCase() + name.slice(1), kebab, snake: kebab.replaceAll("-", "_") };
  if (RESERVED_WORDS.has(forms.camel) || RESERVED_WORDS.has(forms.pascal)) {
    refuse("it is a reserved word", `choose another name, e.g. ${name}Handler`);
  }
  if (BUILT_IN_NAMES.has(forms.pascal)) {
    refuse("it clashes with a built-in name", `choose another name, e.g. My${name}`);
  }
  return forms;
}

function toKebab(pascal: string): string {
  return pascal
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

/** A PascalCase guess from words in any case, or "" when nothing usable is left. */
function toPascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  return PASCAL_CASE.test(joined) ? joined : "";
}
