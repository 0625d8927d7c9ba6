/**
 * RFC 6570 URI templates, levels 1 to 3 (the expressions resource templates use): parsing,
 * matching a concrete URI back to its variables, and the variables' type read from the
 * template text. Level 4 modifiers (`:n` prefixes, `*` explode) are refused at parse time,
 * because a match could not tell their parts apart.
 */

/** Operators of levels 2 and 3; "" is simple expansion. */
type Operator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&";
const OPERATORS = new Set<string>(["+", "#", ".", "/", ";", "?", "&"]);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

/** What one value may hold on the wire: unreserved or percent-encoded, plus reserved characters for `+` and `#`. */
const UNRESERVED_VALUE = "(?:[A-Za-z0-9\\-._~]|%[0-9A-Fa-f]{2})*?";
/** A label value stops at ".", so `{name}{.ext}` splits "report.v2.pdf" at its last dot. */
const LABEL_VALUE = "(?:[A-Za-z0-9\\-_~]|%[0-9A-Fa-f]{2})*";
const RESERVED_VALUE = "[^,]*?";
/** A lone reserved variable takes anything, commas included (`{+path}`). */
const RESERVED_SINGLE = ".*?";

// ---- The variables' type, read from the template literal. ----

type Trim<S extends string> = S extends `${infer Name}*` ? Name : S extends `${infer Name}:${string}` ? Name : S;
type Split<S extends string> = S extends `${infer Head},${infer Rest}` ? Trim<Head> | Split<Rest> : Trim<S>;
/** Form-style operators (`?`, `&`) and `;` may leave a variable out of the URI. */
type OptionalNames<E extends string> = E extends `${"?" | "&" | ";"}${infer List}` ? Split<List> : never;
type RequiredNames<E extends string> = E extends `${"?" | "&" | ";"}${string}`
  ? never
  : E extends `${"+" | "#" | "." | "/"}${infer List}`
    ? Split<List>
    : Split<E>;
type Expressions<T extends string> = T extends `${string}{${infer Expr}}${infer Rest}` ? Expr | Expressions<Rest> : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** `TemplateVariables<"users://{id}/posts{?limit}">` is `{ id: string; limit?: string }`. */
export type TemplateVariables<T extends string> = string extends T
  ? Record<string, string | undefined>
  : Flatten<{ [K in RequiredNames<Expressions<T>>]: string } & { [K in OptionalNames<Expressions<T>>]?: string }>;

// ---- Parsing and matching. ----

interface Expression {
  readonly operator: Operator;
  readonly names: readonly string[];
}

export class UriTemplate<T extends string = string> {
  readonly #pattern: RegExp;
  /** For each capture group in order: the expression it belongs to (query forms capture once). */
  readonly #captures: Expression[] = [];
  readonly names: readonly string[];
  /** Names of every `?` and `&` expression: query pairs may come in any order, so any query capture may hold any of them. */
  readonly #queryNames: ReadonlySet<string>;

  constructor(readonly template: T) {
    const parts = parseTemplate(template);
    let source = "^";
    for (const part of parts) {
      if (typeof part === "string") source += escapeRegExp(part);
      else source += this.#expressionPattern(part);
    }
    this.#pattern = new RegExp(`${source}$`);
    this.names = parts.flatMap((part) => (typeof part === "string" ? [] : part.names));
    this.#queryNames = new Set(this.#captures.flatMap((expression) => (expression.operator === "?" || expression.operator === "&" ? expression.names : [])));
  }

  /** The variables a URI binds, or undefined when the URI does not fit the template. */
  match(uri: string): TemplateVariables<T> | undefined {
    const found = this.#pattern.exec(uri);
    if (found === null) return undefined;
    const variables: Record<string, string> = {};
    let group = 1;
    try {
      for (const expression of this.#captures) {
        const captured = found[group++];
        if (captured === undefined) continue;
        if (expression.operator === "?" || expression.operator === "&" || expression.operator === ";") {
          readPairs(captured, expression.operator === ";" ? new Set(expression.names) : this.#queryNames, expression.operator === ";" ? ";" : "&", variables);
        } else {
          const separator = expression.operator === "." || expression.operator === "/" ? expression.operator : ",";
          const values = expression.names.length === 1 ? [captured] : captured.split(separator);
          if (values.length !== expression.names.length) return undefined;
          expression.names.forEach((name, index) => (variables[name] = decodeURIComponent(values[index]!)));
        }
      }
    } catch {
      return undefined; // a malformed percent-encoding
    }
    return variables as TemplateVariables<T>;
  }

  #expressionPattern(expression: Expression): string {
    this.#captures.push(expression);
    const { operator, names } = expression;
    const reserved = operator === "+" || operator === "#";
    const value = reserved ? (names.length === 1 ? RESERVED_SINGLE : RESERVED_VALUE) : UNRESERVED_VALUE;
    const list = names.map(() => value).join(",");
    switch (operator) {
      case "":
      case "+":
        return `(${list})`;
      case "#":
        return `(?:#(${list}))?`;
      case ".":
        return `(?:\\.(${names.map(() => LABEL_VALUE).join("\\.")}))?`;
      case "/":
        return `(?:/(${names.map(() => UNRESERVED_VALUE).join("/")}))?`;
      case ";":
        return `((?:;${UNRESERVED_VALUE}(?:=${UNRESERVED_VALUE})?)*)`;
      case "?":
        return `(\\?[^#]*)?`;
      case "&":
        return `((?:&[^#&]*)*)`;
    }
  }
}

/** Splits a template into literal text and expressions; a malformed template throws a TypeError naming the fault. */
function parseTemplate(template: string): (string | Expression)[] {
  const parts: (string | Expression)[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    const close = rest.indexOf("}");
    // Positions are counted in characters of the whole template, from 1.
    const at = (index: number) => template.length - rest.length + index + 1;
    if (open === -1) {
      if (close !== -1) throw new TypeError(`URI template ${template}: the "}" at character ${at(close)} closes no "{"`);
      parts.push(rest);
      break;
    }
    if (close === -1) throw new TypeError(`URI template ${template}: the "{" at character ${at(open)} is never closed; add "}" after its variable name`);
    if (close < open) throw new TypeError(`URI template ${template}: the "}" at character ${at(close)} closes no "{"`);
    if (open > 0) parts.push(rest.slice(0, open));
    parts.push(parseExpression(template, rest.slice(open + 1, close)));
    rest = rest.slice(close + 1);
  }
  return parts;
}

function parseExpression(template: string, body: string): Expression {
  const operator = (OPERATORS.has(body.charAt(0)) ? body.charAt(0) : "") as Operator;
  const names = body.slice(operator.length).split(",");
  for (const name of names) {
    if (/[*:]/.test(name)) throw new TypeError(`URI template ${template}: "${name}" uses a level 4 modifier (":n" or "*"), which cannot be matched back`);
    if (!VARNAME.test(name)) throw new TypeError(`URI template ${template}: "{${body}}" holds an invalid variable name "${name}"`);
  }
  return { operator, names };
}

/** Reads `name=value` pairs (`?a=1&b=2`, `&c=3`, `;d=4;e`) keeping only the template's names. */
function readPairs(captured: string, names: ReadonlySet<string>, separator: string, into: Record<string, string>): void {
  for (const pair of captured.slice(1).split(separator)) {
    if (pair.length === 0) continue;
    const equals = pair.indexOf("=");
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (!names.has(name)) continue;
    into[name] = decodeURIComponent(equals === -1 ? "" : pair.slice(equals + 1).replace(/\+/g, "%20"));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}
