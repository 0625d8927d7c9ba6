/**
 * What an answer lacks that its revision's schema requires: a key the schema lists as
 * `required`, a list or an object where the schema has one, a content block of a type the
 * revision does not define. Read from the generated shapes (each revision's `shapes.ts`),
 * so a revision added by regeneration is checked by its own rules. A project's conformance
 * test runs it on what its own tools, resources and prompts answer, which the official suite
 * never calls.
 */
import { LEGACY_REVISIONS } from "../legacy/revisions.js";
import { PROTOCOL_VERSION, RESULT_SHAPES, SHAPES, type Shape } from "../protocol.js";

type Named = { readonly [name: string]: Shape };
interface RevisionShapes {
  readonly SHAPES: Named;
  readonly RESULT_SHAPES: Named;
}

/** Deeper than any answer the schema describes; a cycle in the data stops here rather than overflowing. */
const MAX_DEPTH = 64;

/** The revisions whose shapes this runtime holds: the one it is built on, and every initialize-era one. */
export function shapedRevisions(): string[] {
  return [PROTOCOL_VERSION, ...LEGACY_REVISIONS.map((revision) => revision.SHAPES_REVISION)];
}

/**
 * Each way `result` (the answer to `method` at `revision`) breaks what the revision requires,
 * as "result.content: missing, CallToolResult requires it"; empty when it holds everything.
 */
export function answerProblems(revision: string, method: string, result: unknown): string[] {
  const shapes = shapesOf(revision);
  const shape = shapes.RESULT_SHAPES[method];
  if (shape === undefined) throw new Error(`${revision} has no request ${method} (its results: ${Object.keys(shapes.RESULT_SHAPES).join(", ")})`);
  const problems: string[] = [];
  walk(result, shape, { named: shapes.SHAPES, problems }, "result", typeof shape === "string" ? shape : method, 0);
  return problems;
}

function shapesOf(revision: string): RevisionShapes {
  if (revision === PROTOCOL_VERSION) return { SHAPES, RESULT_SHAPES };
  const legacy = LEGACY_REVISIONS.find((shapes) => shapes.SHAPES_REVISION === revision);
  if (legacy === undefined) throw new Error(`no shapes for revision ${revision}: this runtime has ${shapedRevisions().join(", ")}`);
  return legacy;
}

interface Walk {
  readonly named: Named;
  readonly problems: string[];
}

/** `where` names the definition the value is checked against, for the message. */
function walk(value: unknown, shape: Shape, into: Walk, path: string, where: string, depth: number): void {
  if (depth > MAX_DEPTH) return;
  let own: Shape | undefined = shape;
  for (let hops = 0; typeof own === "string" && hops < MAX_DEPTH; hops++) {
    where = own;
    own = into.named[own];
  }
  if (own === undefined || typeof own === "string" || own === true) return;
  if ("items" in own) {
    if (!Array.isArray(value)) return void into.problems.push(`${path}: not a list, ${where} has a list here`);
    value.forEach((item, index) => walk(item, own.items, into, `${path}[${index}]`, where, depth + 1));
    return;
  }
  if (!isObject(value)) return void into.problems.push(`${path}: not an object, ${where} has an object here`);
  if ("byType" in own) {
    const type = value["type"];
    const member = typeof type === "string" ? own.byType[type] : undefined;
    if (member === undefined)
      return void into.problems.push(`${path}.type: ${JSON.stringify(type)} is none of ${where}'s types (${Object.keys(own.byType).join(", ")})`);
    return walk(value, member, into, path, where, depth + 1);
  }
  for (const key of own.required ?? []) if (value[key] === undefined) into.problems.push(`${path}.${key}: missing, ${where} requires it`);
  for (const [key, child] of Object.entries(own.keys)) if (value[key] !== undefined) walk(value[key], child, into, `${path}.${key}`, where, depth + 1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
