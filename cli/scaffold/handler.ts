import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SUBSCRIPTION_KINDS, type SubscriptionFilterKey } from "../../generated/v2607/capabilities.js";
import { CliError } from "../errors.js";
import { packageRoot } from "../toolbox/package.js";
import { applyFiles, requireProject, type ApplyOptions, type ApplyResult } from "./apply.js";
import { withEventSource, type EventSourceChoice } from "./event-source.js";
import { validateName } from "./names.js";
import { handlerClassName } from "./project.js";
import { extendEventTopics, registerHandler } from "./register.js";
import { renderTemplateTree } from "./render.js";

/**
 * The notification kinds a handler can emit, by the word used on the command line. The
 * words are this command's vocabulary; what each kind means (the handler capability it
 * declares, the filter key a client asks with, its notification method) comes from the
 * generated map of the revision new projects use.
 */
const KIND_WORDS = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged",
  "resource-updates": "resourceSubscriptions",
} as const satisfies Record<string, SubscriptionFilterKey>;

export const NOTIFICATION_KINDS = Object.fromEntries(
  Object.entries(KIND_WORDS).map(([word, key]) => {
    const { handlerCapability, filterKey, notificationMethod } = SUBSCRIPTION_KINDS[key];
    return [word, { capability: handlerCapability, filterKey, method: notificationMethod }];
  }),
) as { readonly [W in keyof typeof KIND_WORDS]: { capability: string; filterKey: SubscriptionFilterKey; method: string } };
export type NotificationKind = keyof typeof NOTIFICATION_KINDS;

export interface HandlerOptions extends ApplyOptions {
  project: string;
  name: string;
  notifications: string[];
  /** Also switch the server's event source (adds the Redis module and dependency for redis). */
  eventSource?: EventSourceChoice;
}

/** Checks --notifications words; an unknown one is an error listing the known ones. */
export function parseNotifications(words: string[]): NotificationKind[] {
  const kinds = words
    .flatMap((word) => word.split(","))
    .map((word) => word.trim())
    .filter(Boolean);
  const known = Object.keys(NOTIFICATION_KINDS);
  const unknown = kinds.filter((kind) => !known.includes(kind));
  if (unknown.length > 0) {
    throw new CliError(`unknown notification kind ${unknown.join(", ")}`, { hint: `choose from ${known.join(", ")}`, exitCode: 2 });
  }
  const chosen = known.filter((kind) => kinds.includes(kind)) as NotificationKind[];
  return chosen.length > 0 ? chosen : ["tools"];
}

/** `mcp-gen handler <Name>`: the handler, its test, and its registration in src/server.ts. */
export async function generateHandler(options: HandlerOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "handler");
  const kinds = parseNotifications(options.notifications);
  const root = requireProject(options.project);
  const className = handlerClassName(names);
  const view = {
    className,
    names,
    topic: names.kebab,
    kinds: kinds.map((kind) => ({ kind, ...NOTIFICATION_KINDS[kind] })),
    listKinds: kinds.filter((kind) => kind !== "resource-updates").map((kind) => NOTIFICATION_KINDS[kind]),
    updates: kinds.includes("resource-updates"),
    firstFilter: kinds[0] === "resource-updates" ? { resourceSubscriptions: ["app://watched"] } : { [NOTIFICATION_KINDS[kinds[0]!].filterKey]: true },
  };
  const created = await renderTemplateTree(join(packageRoot(), "templates", "handler"), view, { fileName: names.kebab });
  const serverPath = join(root, "src", "server.ts");
  const serverText = readFileSync(serverPath, "utf8");
  const registered = await registerHandler(serverText, "src/server.ts", {
    className,
    moduleSpecifier: `./handlers/${names.kebab}.js`,
  });
  const edited = registered === serverText ? [] : [{ path: "src/server.ts", content: registered }];
  const eventsPath = join(root, "src", "events.ts");
  if (existsSync(eventsPath)) {
    const eventsText = readFileSync(eventsPath, "utf8");
    const extended = await extendEventTopics(eventsText, `${names.pascal}Events`, `./handlers/${names.kebab}.js`);
    if (extended !== eventsText) edited.push({ path: "src/events.ts", content: extended });
  }
  if (options.eventSource === undefined) return applyFiles(root, created, edited, options);
  const switched = await withEventSource(root, options.eventSource, created, edited);
  return applyFiles(root, switched.created, switched.edited, options);
}
