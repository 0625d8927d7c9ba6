/**
 * The runtime's import rules read from its sources: its modules form no import circle, and
 * the core reaches the initialize era (legacy/) only through era.ts (what a no-era server
 * loads at run time is checked in test/e2e/runtime/imports.test.ts). The graph is read from
 * every import and export specifier of the sources, `import type` included (a type-only
 * circle still ties the files together).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import { ts } from "ts-morph";
import { repoRoot } from "../support/schemas.js";

const RUNTIME = join(repoRoot, "packages", "runtime", "src");
const LEGACY = "legacy/";

/**
 * The files outside legacy/ that may import it: the main entry and the wiring that hands its
 * `createServer` the initialize era, the client, which speaks to initialize-era servers, and
 * the testing entry's answer check, which reads every revision's shapes.
 */
const MAY_IMPORT_LEGACY = ["index.ts", "create-server.ts", "client/client.ts", "client/negotiate.ts", "testing/answer-shape.ts"];

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) yield path;
  }
}

/** Every module specifier a file names: import and export declarations, `import("...")` types and calls. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]!)) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The runtime's import graph: each file (relative to packages/runtime/src, `/`-separated) to the runtime files it names. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(RUNTIME)) {
    const targets = specifiers(file)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
      .filter((target) => target.startsWith(RUNTIME + sep) && existsSync(target))
      .map((target) => relative(RUNTIME, target).split(sep).join("/"));
    graph.set(relative(RUNTIME, file).split(sep).join("/"), [...new Set(targets)].sort());
  }
  return graph;
}

/** The import circles: one per strongly connected component of more than one file (or a file importing itself), as a path around it. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(pathAround(graph, new Set(component)));
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return found;
}

/** One circle through a component, from its first file back to it (breadth-first, so the shortest). */
function pathAround(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    for (const target of graph.get(queue[at]!) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let step: string | undefined = queue[at]; step !== undefined && step !== start; step = cameFrom.get(step)) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, queue[at]!);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

test("the runtime's modules import one another without a circle", () => {
  const found = circles(importGraph());
  assert.deepEqual(
    found.map((circle) => circle.join(" -> ")),
    [],
    `import circles in packages/runtime/src/:\n${found.map((circle) => `  ${circle.join(" -> ")}`).join("\n")}`,
  );
});

test("no core or transport module imports legacy/: only the entry wiring and the client do", () => {
  const offenders: string[] = [];
  for (const [file, targets] of importGraph()) {
    if (file.startsWith(LEGACY) || MAY_IMPORT_LEGACY.includes(file)) continue;
    for (const target of targets) if (target.startsWith(LEGACY)) offenders.push(`${file} imports ${target}`);
  }
  assert.deepEqual(offenders, []);
});
