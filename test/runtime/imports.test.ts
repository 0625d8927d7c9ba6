/**
 * The runtime's import rules: its modules form no import circle, the core reaches the
 * initialize era (legacy/) only through era.ts, and a server made by the no-era entry loads
 * nothing from legacy/. The graph is read from every import and export specifier of the
 * sources, `import type` included (a type-only circle still ties the files together).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "node:test";
import { ts } from "ts-morph";
import { repoRoot } from "../support/schemas.js";

const RUNTIME = join(repoRoot, "templates", "runtime");
const LEGACY = "legacy/";

/**
 * The files outside legacy/ that may import it: the main entry and the wiring that hands its
 * `createServer` the initialize era, and the client, which speaks to initialize-era servers.
 */
const MAY_IMPORT_LEGACY = ["index.ts", "create-server.ts", "client/client.ts", "client/negotiate.ts"];

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

/** The runtime's import graph: each file (relative to templates/runtime, `/`-separated) to the runtime files it names. */
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
    `import circles in templates/runtime/:\n${found.map((circle) => `  ${circle.join(" -> ")}`).join("\n")}`,
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

/** A loader hook that appends every module URL the process resolves to the file it is given. */
const RECORDER = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, resolved.url + "\\n");
  return resolved;
}
`;

test("a server made by the no-era entry serves a 2026-07-28 request and loads nothing from legacy/", async () => {
  const record = join(mkdtempSync(join(tmpdir(), "mcp-loaded-")), "loaded.txt");
  const entry = pathToFileURL(join(RUNTIME, "modern.ts")).href;
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: meta } };
  const script = `
import { register } from "node:module";
register("data:text/javascript,${encodeURIComponent(RECORDER)}", { data: { file: ${JSON.stringify(record)} } });
const { createServer, createHttpHandler } = await import(${JSON.stringify(entry)});
const { createServer: httpServer } = await import("node:http");
const server = createServer({ name: "no-era", version: "1" });
server.addTool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "hi" }] }));
const http = httpServer(createHttpHandler(server));
await new Promise((done) => http.listen(0, "127.0.0.1", done));
const response = await fetch("http://127.0.0.1:" + http.address().port + "/", {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-method": "tools/call", "mcp-name": "echo", "mcp-protocol-version": "2026-07-28" },
  body: ${JSON.stringify(JSON.stringify(call))},
});
console.log(JSON.stringify({ status: response.status, body: await response.json() }));
await server.close();
http.close();
`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill(), 60_000);
  const code = await new Promise<number | null>((done) => child.on("close", done));
  clearTimeout(timer);
  assert.equal(code, 0, stderr);
  const answer = JSON.parse(stdout.trim().split("\n").pop()!) as { status: number; body: { result?: { content?: unknown } } };
  assert.deepEqual(answer, { status: 200, body: { jsonrpc: "2.0", id: 1, result: answer.body.result } });
  assert.deepEqual(answer.body.result?.content, [{ type: "text", text: "hi" }]);
  const loaded = readFileSync(record, "utf8")
    .split("\n")
    .filter((url) => url !== "");
  const runtimeLoaded = loaded.filter((url) => url.startsWith(pathToFileURL(RUNTIME).href + "/"));
  assert.ok(
    runtimeLoaded.some((url) => url.endsWith("/server.ts")),
    "the record holds the runtime's modules",
  );
  const legacy = runtimeLoaded.filter((url) => fileURLToPath(url).startsWith(join(RUNTIME, "legacy") + sep));
  assert.deepEqual(legacy, []);
});
