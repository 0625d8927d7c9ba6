/**
 * Scaffold templates as data: a handlebars template's parsed tree (whitespace control
 * already applied by the parser) reduced to the few node kinds our templates use, and the
 * renderer for it. `npm run build` stores every template in this form
 * (`dist/templates.json`, see build-finish.ts), so creating a project renders without
 * loading handlebars; from source the tree comes from handlebars' parser at run time.
 * Either way one renderer runs, and a test holds it to handlebars' own output.
 */

/** A template: text, an output, or a block of the three helpers our templates use. */
export type TemplateNode = string | ["out", Expression] | ["if" | "unless" | "each", Expression, TemplateNode[], TemplateNode[]];
/** A value: a lookup (`@data`, `../` depth, parts), a helper call, or a literal. */
export type Expression = ["path", boolean, number, string[]] | ["call", string, Expression[]] | ["literal", string | number | boolean | null];

/** The only helpers templates may call; an unknown one fails the render. */
const HELPERS: Record<string, (...values: unknown[]) => unknown> = {
  eq: (left, right) => left === right,
  json: (value) => JSON.stringify(value),
  minus: (left, right) => (left as number) - (right as number),
};

/** The parts of a handlebars AST node this module reads. */
interface AstNode {
  type: string;
  value?: unknown;
  body?: AstNode[];
  path?: AstNode;
  params?: AstNode[];
  program?: AstNode;
  inverse?: AstNode;
  data?: boolean;
  depth?: number;
  parts?: string[];
  original?: string;
}

/** A handlebars Program (from `Handlebars.parse`) as template nodes; anything we do not render is refused. */
export function fromAst(program: AstNode): TemplateNode[] {
  const nodes: TemplateNode[] = [];
  for (const statement of program.body ?? []) {
    if (statement.type === "ContentStatement") {
      if (statement.value !== "") nodes.push(statement.value as string);
    } else if (statement.type === "MustacheStatement") {
      nodes.push(["out", statement.params!.length > 0 ? call(statement) : expression(statement.path!)]);
    } else if (statement.type === "BlockStatement") {
      const helper = statement.path!.original;
      if (helper !== "if" && helper !== "unless" && helper !== "each") throw new Error(`unsupported block helper ${helper}`);
      if (statement.params!.length !== 1) throw new Error(`{{#${helper}}} takes one argument`);
      const inverse = statement.inverse === undefined ? [] : fromAst(statement.inverse);
      nodes.push([helper, expression(statement.params![0]!), statement.program === undefined ? [] : fromAst(statement.program), inverse]);
    } else if (statement.type !== "CommentStatement") throw new Error(`unsupported template statement ${statement.type}`);
  }
  return nodes;
}

function call(node: AstNode): Expression {
  const name = node.path!.original!;
  if (HELPERS[name] === undefined) throw new Error(`unknown helper ${name}`);
  return ["call", name, node.params!.map(expression)];
}

function expression(node: AstNode): Expression {
  if (node.type === "PathExpression") return ["path", node.data === true, node.depth ?? 0, node.parts ?? []];
  if (node.type === "SubExpression") return call(node);
  if (node.type.endsWith("Literal")) return ["literal", (node.value ?? null) as string | number | boolean | null];
  throw new Error(`unsupported expression ${node.type}`);
}

/** Where a lookup happens: the context stack (innermost last) and the `@` data of the innermost each. */
interface Scope {
  contexts: unknown[];
  data: Record<string, unknown>;
}

/** Renders `nodes` with `view`; a missing value that would be printed is an error (handlebars' strict mode). */
export function renderTemplate(nodes: readonly TemplateNode[], view: object): string {
  return renderNodes(nodes, { contexts: [view], data: {} });
}

function renderNodes(nodes: readonly TemplateNode[], scope: Scope): string {
  let out = "";
  for (const node of nodes) {
    if (typeof node === "string") out += node;
    else if (node[0] === "out") out += printable(evaluate(node[1], scope, true));
    else if (node[0] === "each") out += renderEach(node[1], node[2], node[3], scope);
    else {
      const truthy = isTruthy(evaluate(node[1], scope, false));
      out += renderNodes((node[0] === "if") === truthy ? node[2] : node[3], scope);
    }
  }
  return out;
}

function renderEach(list: Expression, body: readonly TemplateNode[], inverse: readonly TemplateNode[], scope: Scope): string {
  const items = evaluate(list, scope, false);
  const entries: Array<[string | number, unknown]> = Array.isArray(items)
    ? items.map((item, index) => [index, item])
    : items !== null && typeof items === "object"
      ? Object.entries(items)
      : [];
  if (entries.length === 0) return renderNodes(inverse, scope);
  return entries
    .map(([key, item], index) =>
      renderNodes(body, {
        contexts: [...scope.contexts, item],
        data: { index, key, first: index === 0, last: index === entries.length - 1 },
      }),
    )
    .join("");
}

function evaluate(expr: Expression, scope: Scope, strict: boolean): unknown {
  if (expr[0] === "literal") return expr[1];
  if (expr[0] === "call") return HELPERS[expr[1]]!(...expr[2].map((param) => evaluate(param, scope, true)));
  const [, data, depth, parts] = expr;
  let value: unknown = data ? scope.data : scope.contexts[scope.contexts.length - 1 - depth];
  for (const part of parts) {
    if (value === null || value === undefined || (strict && (typeof value !== "object" || !(part in value)))) {
      if (!strict) return undefined;
      throw new Error(`"${part}" not defined in ${JSON.stringify(parts.join("."))}`);
    }
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Handlebars' truth: false, undefined, null, "", 0 and [] are false. */
function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** A printed value as handlebars prints it with `noEscape`: null and undefined print nothing. */
function printable(value: unknown): string {
  return value === undefined || value === null ? "" : String(value);
}
