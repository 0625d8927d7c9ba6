import { terminalText } from "../toolbox/escape.js";
import { AREAS, type Area, type Change, type RevisionDiff } from "./compare.js";
import type { ProjectUses } from "./uses.js";

/** What `mcp-gen diff` reports: the protocol's changes, and when run in a project what of them it uses. */
export interface DiffReport {
  diff: RevisionDiff;
  /** Absent outside a project. */
  project?: ProjectUses;
}

/** Headings of the areas listed one change a line; types come as counts (there are many). */
const HEADINGS: Partial<Record<Area, string>> = {
  method: "Methods and notifications",
  capability: "Capabilities",
  "list-changed kind": "List-changed kinds",
  "subscription kind": "Subscription kinds",
  "error code": "Error codes",
  "content block": "Content block types",
};

const PLURALS: Record<Area, string> = {
  method: "methods",
  "params field": "params fields",
  "result field": "result fields",
  capability: "capabilities",
  "list-changed kind": "list-changed kinds",
  "subscription kind": "subscription kinds",
  "error code": "error codes",
  "content block": "content block types",
  type: "definitions",
  "type field": "definition fields",
};

const SIGN = { added: "+", removed: "-", changed: "~" } as const;

/** The report for a person: each area's changes, the fields per method, types as counts, then the project's uses and offers. */
export function renderText(report: DiffReport): string {
  const { diff, project } = report;
  const lines = [`MCP ${diff.to} against ${diff.from}`, ""];
  for (const area of AREAS) {
    const heading = HEADINGS[area];
    if (heading === undefined) continue;
    const changes = diff.changes.filter((change) => change.area === area);
    lines.push(`${heading}: ${changes.length === 0 ? "no changes" : counts(changes)}`);
    for (const change of changes) lines.push(`  ${SIGN[change.change]} ${change.name}${detailOf(change)}`);
    if (area === "method") lines.push(...fieldLines(diff.changes));
  }
  lines.push(typeCounts(diff.changes), "");
  if (project) lines.push(...projectLines(diff, project));
  else lines.push("Not in a project (no package.json \"mcp-gen\" here): no source was read.");
  lines.push("", `Summary: ${summaryLine(report)}`);
  return `${lines.map(terminalText).join("\n")}\n`;
}

/** The report for a script: everything, as one JSON document. */
export function renderJson(report: DiffReport): string {
  const { diff, project } = report;
  const body = {
    from: diff.from,
    to: diff.to,
    changes: diff.changes,
    project: project ? { files: project.files.length, owners: project.owners, affected: project.affected, couldDeclare: project.couldDeclare } : null,
    usesChanged: usesChanged(report),
    summary: summaryLine(report),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** Whether the project uses something the newer revision changed or removed: what the exit status says. */
export function usesChanged(report: DiffReport): boolean {
  return (report.project?.affected.length ?? 0) > 0;
}

/** One line: counts per area, and how many places of the project are affected. */
export function summaryLine(report: DiffReport): string {
  const { diff, project } = report;
  const parts = AREAS.flatMap((area) => {
    const changes = diff.changes.filter((change) => change.area === area);
    return changes.length === 0 ? [] : [`${PLURALS[area]} ${counts(changes)}`];
  });
  const protocol = `${diff.to} against ${diff.from}: ${parts.length === 0 ? "no changes" : parts.join("; ")}`;
  if (!project) return protocol;
  const uses = usesChanged(report) ? `the project uses what changed: ${placesText(project)}` : "the project uses nothing that changed";
  const offers = project.couldDeclare.length === 0 ? "" : `, and could declare ${project.couldDeclare.length} new thing${project.couldDeclare.length === 1 ? "" : "s"}`;
  return `${protocol}; ${uses}${offers}`;
}

/** `21 uses at 11 places`: what the project uses that changed, and at how many file:line places. */
export function placesText(project: ProjectUses): string {
  const uses = project.affected.length;
  const places = new Set(project.affected.map((use) => `${use.file}:${use.line}`)).size;
  return `${uses} use${uses === 1 ? "" : "s"} at ${places} place${places === 1 ? "" : "s"}`;
}

function counts(changes: readonly Change[]): string {
  return (["added", "removed", "changed"] as const)
    .map((kind) => [kind, changes.filter((change) => change.change === kind).length] as const)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(", ");
}

function detailOf(change: Change): string {
  if (change.change === "changed") return `: ${change.before} -> ${change.after}`;
  const text = change.after ?? change.before;
  return text === undefined ? "" : ` (${text})`;
}

/** The params and result fields, grouped under their method. */
function fieldLines(changes: readonly Change[]): string[] {
  // Grouped by method (a stable sort keeps params before result within one).
  const fields = changes
    .filter((change) => change.area === "params field" || change.area === "result field")
    .sort((a, b) => (a.method! < b.method! ? -1 : a.method! > b.method! ? 1 : 0));
  const lines = [`Request and result fields: ${fields.length === 0 ? "no changes" : counts(fields)}`];
  let method: string | undefined;
  for (const change of fields) {
    if (change.method !== method) lines.push(`  ${(method = change.method)}`);
    lines.push(`    ${SIGN[change.change]} ${change.name.slice(`${method} `.length)}${fieldDetail(change)}`);
  }
  return lines;
}

function fieldDetail(change: Change): string {
  if (change.change === "changed") return `: ${change.before} -> ${change.after}`;
  return `: ${change.after ?? change.before}`;
}

function typeCounts(changes: readonly Change[]): string {
  const types = changes.filter((change) => change.area === "type");
  const fields = changes.filter((change) => change.area === "type field");
  const definitions = new Set(fields.map((change) => change.type)).size;
  return `Definitions: ${types.length === 0 ? "none added or removed" : counts(types)}; ${fields.length} field changes in ${definitions} definitions (--json lists them)`;
}

function projectLines(diff: RevisionDiff, project: ProjectUses): string[] {
  const used = project.affected.length === 0 ? "nothing" : `what`;
  const lines = [
    `This project (${project.files.length} source files under src/) uses ${used} ${diff.to} changed or removed${project.affected.length === 0 ? "." : `: ${placesText(project)}`}`,
  ];
  let place: string | undefined;
  for (const use of project.affected) {
    // Uses at one place (a registration uses each request of its group) share one heading.
    const owner = use.owner ? `  ${use.owner.kind} ${use.owner.name}` : "";
    const heading = `  ${use.file}:${use.line}${owner}`;
    if (heading !== place) lines.push((place = heading));
    lines.push(`    ${use.uses}: ${use.changes.map((change) => useDetail(use.uses, change)).join(", ")}`);
  }
  if (project.couldDeclare.length === 0) return lines;
  lines.push("", `It could declare what is new in ${diff.to}:`);
  for (const offer of project.couldDeclare) {
    lines.push(`  ${offer.what}${offer.detail ? ` (${offer.detail})` : ""}`);
    for (const handler of offer.handlers) lines.push(`    handler ${handler.name} (${handler.file}:${handler.line})`);
    if (offer.how) lines.push(`    ${offer.how}`);
  }
  return lines;
}

/** A change as a use sees it: its sign and what it names, without the method or definition it is part of. */
function useDetail(uses: string, change: Change): string {
  const subject = uses.replace(/^(?:method|subscription kind|type) /, "");
  const name = change.name.startsWith(`${subject} `) || change.name.startsWith(`${subject}.`) ? change.name.slice(subject.length + 1) : change.name;
  if (change.area === "method" || change.area === "type" || change.area === "subscription kind") return change.change;
  return `${SIGN[change.change]} ${name}`;
}
