/**
 * What a project's own code reads from its environment, found in its syntax trees rather
 * than listed by hand: `process.env.X`, `process.env["X"]`, `const { X } = process.env`,
 * and the same through a parameter that is handed the environment (`limits(process.env)`
 * reading `env["X"]`) or a name (`fromEnv("X")` reading `process.env[name]`), followed
 * across functions and files. Functions are matched by name, which is what a project's own
 * helpers need; a read through a name computed any other way cannot be listed and is
 * reported by place instead.
 */
import type { Node as MorphNode, SourceFile } from "ts-morph";

/** One source file: its path relative to the project (with `/`) and its text. */
export interface SourceText {
  path: string;
  text: string;
}

export interface SourceReads {
  /** Each variable read, with the files that read it (sorted). */
  variables: Map<string, string[]>;
  /** `file:line` of each read whose name is computed: it cannot be listed. */
  computed: string[];
  /** The names of every function the files call: what tells which transports the project serves. */
  called: Set<string>;
}

/** A parameter of a named function: `name#index`. */
type ParamKey = string;

/** Rounds of following the environment through calls; each round can only add, so this bounds a chain of helpers. */
const MAX_ROUNDS = 16;

export async function readEnvironmentReads(files: readonly SourceText[]): Promise<SourceReads> {
  const { Node, Project, SyntaxKind } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true });
  const trees = files.map((file) => ({ path: file.path, tree: project.createSourceFile(file.path, file.text) }));

  /** Parameters handed the environment itself, and parameters handed a variable's name. */
  const holders = new Set<ParamKey>();
  const keys = new Set<ParamKey>();
  const variables = new Map<string, Set<string>>();
  const computed = new Set<string>();
  const called = new Set<string>();

  const unwrap = (node: MorphNode): MorphNode => {
    let current = node;
    while (Node.isParenthesizedExpression(current) || Node.isAsExpression(current) || Node.isNonNullExpression(current)) current = current.getExpression();
    return current;
  };
  const functionName = (fn: MorphNode): string | undefined => {
    if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return fn.getName();
    const parent = fn.getParent();
    if (parent && Node.isVariableDeclaration(parent)) return parent.getName();
    if (parent && Node.isPropertyAssignment(parent)) return parent.getName();
    return undefined;
  };
  /** The parameter `name` of the nearest enclosing function that has one, as `fn#index`. */
  const parameterOf = (node: MorphNode, name: string): ParamKey | undefined => {
    for (const fn of node.getAncestors()) {
      if (!Node.isFunctionLikeDeclaration(fn)) continue;
      const index = fn.getParameters().findIndex((parameter) => parameter.getName() === name);
      if (index < 0) continue;
      const owner = functionName(fn);
      return owner === undefined ? undefined : `${owner}#${index}`;
    }
    return undefined;
  };
  /** Whether an expression is the environment: process.env, a parameter handed it, or a file-level name holding it. */
  const isEnvironment = (expression: MorphNode, file: SourceFile): boolean => {
    const node = unwrap(expression);
    if (Node.isPropertyAccessExpression(node) && node.getName() === "env") {
      const owner = unwrap(node.getExpression());
      return (Node.isIdentifier(owner) && owner.getText() === "process") || (Node.isPropertyAccessExpression(owner) && owner.getName() === "process");
    }
    if (Node.isBinaryExpression(node) && ["??", "||"].includes(node.getOperatorToken().getText())) return isEnvironment(node.getLeft(), file);
    if (!Node.isIdentifier(node)) return false;
    const parameter = parameterOf(node, node.getText());
    if (parameter !== undefined) return holders.has(parameter);
    const initializer = file.getVariableDeclaration(node.getText())?.getInitializer();
    return initializer !== undefined && initializer !== expression && isEnvironment(initializer, file);
  };
  const record = (name: string, path: string) => {
    if (!variables.has(name)) variables.set(name, new Set());
    variables.get(name)!.add(path);
  };
  const literal = (node: MorphNode): string | undefined =>
    Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node) ? node.getLiteralValue() : undefined;

  const visit = (path: string, file: SourceFile, node: MorphNode): boolean => {
    let grew = false;
    const mark = (set: Set<ParamKey>, key: ParamKey | undefined) => {
      if (key === undefined || set.has(key)) return;
      set.add(key);
      grew = true;
    };
    if (Node.isParameterDeclaration(node)) {
      const fn = node.getParent();
      const owner = functionName(fn);
      const initializer = node.getInitializer();
      if (Node.isFunctionLikeDeclaration(fn) && owner !== undefined && initializer && isEnvironment(initializer, file)) {
        mark(holders, `${owner}#${fn.getParameters().indexOf(node)}`);
      }
    } else if (Node.isPropertyAccessExpression(node) && isEnvironment(node.getExpression(), file)) {
      record(node.getName(), path);
    } else if (Node.isElementAccessExpression(node) && isEnvironment(node.getExpression(), file)) {
      const argument = unwrap(node.getArgumentExpressionOrThrow());
      const name = literal(argument);
      const parameter = Node.isIdentifier(argument) ? parameterOf(argument, argument.getText()) : undefined;
      if (name !== undefined) record(name, path);
      else if (parameter !== undefined) mark(keys, parameter);
      else computed.add(`${path}:${node.getStartLineNumber()}`);
    } else if (Node.isVariableDeclaration(node) && Node.isObjectBindingPattern(node.getNameNode())) {
      const initializer = node.getInitializer();
      if (initializer && isEnvironment(initializer, file)) {
        for (const element of node.getNameNode().asKindOrThrow(SyntaxKind.ObjectBindingPattern).getElements()) {
          record(element.getPropertyNameNode()?.getText().replace(/^["']|["']$/g, "") ?? element.getName(), path);
        }
      }
    } else if (Node.isCallExpression(node)) {
      const callee = unwrap(node.getExpression());
      const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : undefined;
      if (name !== undefined) {
        called.add(name);
        node.getArguments().forEach((argument, index) => {
          const key = `${name}#${index}`;
          if (isEnvironment(argument, file)) mark(holders, key);
          if (!keys.has(key)) return;
          const value = literal(unwrap(argument));
          const forwarded = Node.isIdentifier(argument) ? parameterOf(argument, argument.getText()) : undefined;
          if (value !== undefined) record(value, path);
          else if (forwarded !== undefined) mark(keys, forwarded);
          else computed.add(`${path}:${argument.getStartLineNumber()}`);
        });
      }
    }
    node.forEachChild((child) => {
      if (visit(path, file, child)) grew = true;
    });
    return grew;
  };

  // Each round may learn a parameter that holds the environment or a name; reading again
  // finds what flows through it. A round that learns nothing ends the walk.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let grew = false;
    for (const { path, tree } of trees) if (visit(path, tree, tree)) grew = true;
    if (!grew) break;
  }
  const sorted = new Map([...variables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, paths]) => [name, [...paths].sort()]));
  return { variables: sorted, computed: [...computed].sort(), called };
}
