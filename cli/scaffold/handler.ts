import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot } from "../toolbox/package.js";
import type { PlannedFile } from "../toolbox/write.js";
import { applyFiles, requireProject, type ApplyOptions, type ApplyResult } from "./apply.js";
import { withEventSource, type EventSourceChoice } from "./event-source.js";
import { validateName, type NameForms } from "./names.js";
import { extendEventTopics, HANDLER_LIST_PATH, namesInScope, registerHandler } from "./register.js";
import { renderTemplateTree } from "./render.js";
import { projectKinds, type NotificationKind } from "./notification-kinds.js";

/** The class of a handler named `Audit` (or `AuditHandler`): `AuditHandler`. */
export function handlerClassName(name: NameForms): string {
  return name.pascal.endsWith("Handler") ? name.pascal : `${name.pascal}Handler`;
}

export interface HandlerOptions extends ApplyOptions {
  project: string;
  name: string;
  notifications: string[];
  /** Also switch the server's event source (adds the Redis module and dependency for redis). */
  eventSource?: EventSourceChoice;
}

/**
 * Checks --notifications words against the kinds the project's revision has (`known`); an
 * unknown word is an error listing the known ones. No word means the first kind, tools.
 */
export function parseNotifications(words: string[], known: readonly NotificationKind[]): NotificationKind[] {
  const asked = words
    .flatMap((word) => word.split(","))
    .map((word) => word.trim())
    .filter(Boolean);
  const unknown = asked.filter((word) => !known.some((kind) => kind.word === word));
  if (unknown.length > 0) {
    throw new CliError(`unknown notification kind ${unknown.join(", ")}`, { hint: `choose from ${known.map((kind) => kind.word).join(", ")}`, exitCode: 2 });
  }
  const chosen = [...new Set(asked)].map((word) => known.find((kind) => kind.word === word)!);
  return chosen.length > 0 ? chosen : known.filter((kind) => kind.word === "tools");
}

/** A handler's new files, and the edits of existing ones that register it. */
export interface HandlerPlan {
  created: PlannedFile[];
  edited: PlannedFile[];
}

export interface CollisionTarget {
  path: string;
  text: string;
  /** The handler's name that lands in this file ... */
  name: string;
  /** ... imported from this module (relative to the file). */
  from: string;
}

/** Reads a project file by its path relative to the project; undefined when there is none. */
export type ProjectReader = (path: string) => string | undefined;

/**
 * The handler `names` emitting `kinds`, from the handler template: the one template for
 * `create-mcp-handler`'s first handler and every later one. Its source file comes first.
 */
export async function renderHandler(names: NameForms, kinds: readonly NotificationKind[]): Promise<PlannedFile[]> {
  const view = {
    className: handlerClassName(names),
    names,
    topic: names.kebab,
    kinds,
    listKinds: kinds.filter((kind) => kind.value === "boolean"),
    updates: kinds.some((kind) => kind.value === "uris"),
    // The first kind's filter, as the test's source text.
    firstFilter: kinds[0]!.value === "uris" ? `{ ${kinds[0]!.filterKey}: ["app://watched"] }` : `{ ${kinds[0]!.filterKey}: true }`,
  };
  const files = await renderTemplateTree(join(packageRoot(), "templates", "handler"), view, { fileName: names.kebab });
  return [...files.filter((file) => file.path.startsWith("src/")), ...files.filter((file) => !file.path.startsWith("src/"))];
}

/** Where a handler's names land in a project: the file, the name, and the import it comes by. */
export function handlerLandings(names: NameForms, read: ProjectReader): CollisionTarget[] {
  const targets: CollisionTarget[] = [];
  const listText = read(HANDLER_LIST_PATH);
  if (listText !== undefined) targets.push({ path: HANDLER_LIST_PATH, text: listText, name: handlerClassName(names), from: `./${names.kebab}.js` });
  const eventsText = read(EVENTS_PATH);
  if (eventsText !== undefined) targets.push({ path: EVENTS_PATH, text: eventsText, name: `${names.pascal}Events`, from: `./handlers/${names.kebab}.js` });
  return targets;
}

/**
 * `mcp-gen handler`: the handler's files (renderHandler), its entry in src/handlers/index.ts
 * and its topics in src/events.ts, both edited in place. Refuses a name whose identifiers
 * collide with names those files, or the handler's own imports, already hold.
 */
export async function planHandler(read: ProjectReader, names: NameForms, kinds: readonly NotificationKind[]): Promise<HandlerPlan> {
  const className = handlerClassName(names);
  const created = await renderHandler(names, kinds);
  const listText = read(HANDLER_LIST_PATH);
  if (listText === undefined) {
    throw new CliError(`this project has no ${HANDLER_LIST_PATH} listing its handlers (it predates the handler list)`, {
      hint: `create it with \`export const handlers = [];\`, loop over it in src/server.ts, then run this again`,
    });
  }
  await refuseCollisions(names, created[0]!, handlerLandings(names, read));
  const eventsText = read(EVENTS_PATH);
  const edited: PlannedFile[] = [];
  const registered = await registerHandler(listText, { className, moduleSpecifier: `./${names.kebab}.js` });
  if (registered !== listText) edited.push({ path: HANDLER_LIST_PATH, content: registered });
  if (eventsText !== undefined) {
    const extended = await extendEventTopics(eventsText, `${names.pascal}Events`, `./handlers/${names.kebab}.js`);
    if (extended !== eventsText) edited.push({ path: EVENTS_PATH, content: extended });
  }
  return { created, edited };
}

const EVENTS_PATH = "src/events.ts";

/**
 * A handler's (or tool's, resource's, prompt's: `what`) names must be new where they land:
 * its file must not be one of the files it is registered in; in its own file, none of its declarations
 * may shadow what it imports (`Subscription` makes a `SubscriptionHandler` class beside the
 * imported interface); in the project files it is imported into, the name must not already
 * be taken by something else (`App` makes `AppEvents`, which src/events.ts declares).
 */
export async function refuseCollisions(names: NameForms, source: PlannedFile, targets: readonly CollisionTarget[], what = "handler"): Promise<void> {
  const refuse = (name: string, where: string): never => {
    throw new CliError(`invalid ${what} name ${JSON.stringify(names.pascal)}: ${name} is already a name in ${where}`, {
      hint: `choose another name, e.g. ${names.pascal}Feed`,
      exitCode: 2,
    });
  };
  // The name's own file must not be one the run edits (`Index` makes src/handlers/index.ts,
  // the handler list), compared case-insensitively as some file systems do.
  const landing = targets.find((target) => target.path.toLowerCase() === source.path.toLowerCase());
  if (landing) {
    throw new CliError(`invalid ${what} name ${JSON.stringify(names.pascal)}: its file would be ${landing.path}, the list of the project's ${what}s`, {
      hint: `choose another name, e.g. ${names.pascal}Feed`,
      exitCode: 2,
    });
  }
  const own = (await namesInScope(source.content)).map(({ name }) => name);
  const repeated = own.find((name, index) => own.indexOf(name) !== index);
  if (repeated !== undefined) refuse(repeated, source.path);
  for (const target of targets) {
    const taken = (await namesInScope(target.text)).find(({ name, from }) => name === target.name && from !== target.from);
    if (taken) refuse(target.name, target.path);
  }
}

/** `mcp-gen handler <Name>`: the handler, its test, and its registration in src/handlers/index.ts. */
export async function generateHandler(options: HandlerOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "handler");
  const root = requireProject(options.project);
  const kinds = parseNotifications(options.notifications, projectKinds(root));
  const read: ProjectReader = (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined);
  const { created, edited } = await planHandler(read, names, kinds);
  if (options.eventSource === undefined) return applyFiles(root, created, edited, options);
  const switched = await withEventSource(root, options.eventSource, created, edited);
  return applyFiles(root, switched.created, switched.edited, options);
}
