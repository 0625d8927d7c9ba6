import { CliError } from "../errors.js";
import { isObject, refName, type JsonObject, type JsonValue } from "./normalize.js";
import type { DerivedMethods } from "./ir-methods.js";
import type { SubscriptionKind } from "./ir-model.js";
import { sorted, sortedBy } from "../toolbox/sort.js";

type Definitions = ReadonlyMap<string, JsonObject>;

/**
 * The subscription vocabulary, all of it from the schema: the filter keys of
 * SubscriptionFilter, each key's notification (the {@link} in its description), the handler
 * capability key (the notification method, camelCased), and the ServerCapabilities flag
 * that gates it. Returns null for a schema without a subscription stream.
 */
export function deriveSubscriptions(
  defs: Definitions,
  methods: DerivedMethods,
  notes: string[],
): { kinds: SubscriptionKind[]; streamMethods: string[] } | null {
  const filter = defs.get("SubscriptionFilter");
  if (!filter) {
    notes.push("no SubscriptionFilter in the schema: no subscription stream, SUBSCRIPTION_KINDS is empty");
    return null;
  }
  const listen = methods.clientRequests.find((request) => request.params.kind === "named" && mentions(defs.get(request.params.type), "SubscriptionFilter"));
  if (!listen) {
    throw new CliError("SubscriptionFilter exists but no client request takes it in its params", {
      hint: "the schema needs the listen request (subscriptions/listen) whose params carry the filter",
    });
  }
  const properties = isObject(filter.properties) ? filter.properties : {};
  const partial = sorted(Object.keys(properties)).map((key) => describeKind(defs, key, properties[key] as JsonObject));
  if (partial.length === 0) throw new CliError("SubscriptionFilter has no properties", { hint: "the filter must list the notification types" });
  const kinds = assignServerFlags(defs, partial);
  const streamGroup = `notifications/${listen.method.split("/")[0]}/`;
  const streamNotifications = methods.serverNotifications.filter((n) => n.method.startsWith(streamGroup)).map((n) => n.method);
  return { kinds, streamMethods: sorted(new Set([...kinds.map((kind) => kind.notificationMethod), ...streamNotifications])) };
}

function mentions(node: JsonValue | undefined, name: string): boolean {
  if (refName(node) === name) return true;
  if (Array.isArray(node)) return node.some((item) => mentions(item, name));
  return isObject(node) && Object.values(node).some((value) => mentions(value, name));
}

type KindWithoutFlag = Omit<SubscriptionKind, "serverCapability">;

function describeKind(defs: Definitions, filterKey: string, property: JsonObject): KindWithoutFlag {
  const description = typeof property.description === "string" ? property.description : "";
  const linked = [...description.matchAll(/\{@link (\w+)/g)].map((match) => match[1]).find((name) => /Notification$/.test(name) && defs.has(name));
  if (!linked) {
    throw new CliError(`SubscriptionFilter.${filterKey} names no notification ({@link XNotification} in its description)`, {
      hint: "the filter key's description must link the notification it enables",
    });
  }
  const notification = defs.get(linked)!;
  const method = (notification.properties as JsonObject).method as JsonObject;
  const notificationMethod = String(method.const);
  const value = valueKind(defs, property, filterKey, notification);
  return {
    filterKey,
    ...value,
    notificationMethod,
    notificationType: linked,
    handlerCapability: camelCase(notificationMethod.replace(/^notifications\//, "").split(/[/_]/)),
  };
}

/**
 * A boolean opt-in; or a list of strings: ids when the key is `<thing>Ids` and the
 * notification's params name `<thing>Id` (taskIds -> params.taskId), URIs otherwise.
 */
function valueKind(defs: Definitions, property: JsonObject, filterKey: string, notification: JsonObject): Pick<SubscriptionKind, "value" | "idParam"> {
  if (property.type === "boolean") return { value: "boolean" };
  if (property.type === "array" && isObject(property.items) && property.items.type === "string") {
    const idParam = filterKey.endsWith("Ids") ? filterKey.slice(0, -1) : undefined;
    return idParam !== undefined && paramsDeclare(defs, notification, idParam) ? { value: "ids", idParam } : { value: "uris" };
  }
  throw new CliError(`SubscriptionFilter.${filterKey} is neither a boolean nor a list of URIs or ids`, {
    hint: "teach cli/generate/ir-subscriptions.ts the new filter value shape",
  });
}

/** Whether a notification's params (inline, or through $ref and allOf) declare the property. */
function paramsDeclare(defs: Definitions, notification: JsonObject, property: string): boolean {
  const params = isObject(notification.properties) ? notification.properties.params : undefined;
  return declares(params, property, defs);
}

function declares(node: JsonValue | undefined, property: string, defs: Definitions, depth = 0): boolean {
  if (!isObject(node) || depth > 8) return false;
  const named = refName(node);
  if (named) return declares(defs.get(named), property, defs, depth + 1);
  if (isObject(node.properties) && property in node.properties) return true;
  // Any part of an allOf declaring it is enough; every alternative of an anyOf must.
  if (Array.isArray(node.allOf) && node.allOf.some((part) => declares(part, property, defs, depth + 1))) return true;
  return Array.isArray(node.anyOf) && node.anyOf.length > 0 && node.anyOf.every((part) => declares(part, property, defs, depth + 1));
}

export function camelCase(words: string[]): string {
  return words
    .filter((word) => word !== "")
    .map((word, index) => (index === 0 ? word : word[0].toUpperCase() + word.slice(1)))
    .join("");
}

/**
 * The flag for notifications/<group>/<rest> is ServerCapabilities.<group>.<camel rest> when
 * that exists, else the group's one boolean no other kind claims (resources.subscribe for
 * resources/updated). No group: nothing gates the kind (null). Anything else is ambiguous.
 */
function assignServerFlags(defs: Definitions, kinds: KindWithoutFlag[]): SubscriptionKind[] {
  const groups = serverCapabilityGroups(defs);
  const direct = kinds.map((kind) => {
    const [group, ...rest] = kind.notificationMethod.replace(/^notifications\//, "").split("/");
    const flag = camelCase(rest.join("_").split("_"));
    return { kind, group, flag: groups.get(group)?.includes(flag) ? flag : undefined };
  });
  return sortedBy(
    direct.map(({ kind, group, flag }) => {
      const booleans = groups.get(group);
      if (!booleans) return { ...kind, serverCapability: null };
      if (flag) return { ...kind, serverCapability: [group, flag] as [string, string] };
      const claimed = new Set(direct.filter((other) => other.group === group && other.flag).map((other) => other.flag));
      const remaining = booleans.filter((candidate) => !claimed.has(candidate));
      if (remaining.length !== 1) {
        throw new CliError(`cannot tell which ServerCapabilities.${group} flag gates ${kind.notificationMethod}: candidates [${remaining.join(", ")}]`, {
          hint: "the schema's capability flags changed shape; extend cli/generate/ir-subscriptions.ts",
        });
      }
      return { ...kind, serverCapability: [group, remaining[0]] as [string, string] };
    }),
    (kind) => kind.filterKey,
  );
}

/** ServerCapabilities groups and the boolean flags inside each. */
function serverCapabilityGroups(defs: Definitions): Map<string, string[]> {
  const capabilities = defs.get("ServerCapabilities");
  if (!capabilities || !isObject(capabilities.properties)) {
    throw new CliError("the schema has SubscriptionFilter but no ServerCapabilities with properties", {
      hint: "ServerCapabilities must define the flags that gate subscriptions",
    });
  }
  const groups = new Map<string, string[]>();
  for (const [group, schema] of Object.entries(capabilities.properties)) {
    if (!isObject(schema) || !isObject(schema.properties)) continue;
    const flags = Object.entries(schema.properties).filter(([, flag]) => isObject(flag) && flag.type === "boolean");
    groups.set(group, sorted(flags.map(([name]) => name)));
  }
  return groups;
}
