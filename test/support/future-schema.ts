/**
 * A protocol revision that does not exist yet, derived from the 2026-07-28 schema the way a
 * spec update would change it: one more list-changed kind. The schema gains a filter key
 * (`SubscriptionFilter.widgetsListChanged`), its notification (`notifications/widgets/list_changed`,
 * in the `ServerNotification` union) and the `ServerCapabilities.widgets.listChanged` flag
 * that advertises it. Everything else is the 2026-07-28 schema byte for byte in meaning.
 */
import { readFileSync } from "node:fs";
import { schemaPath } from "./schemas.js";

export const FUTURE_REVISION = "2027-01-26";
/** What the new kind is called in each place the generator derives it from. */
export const FUTURE_KIND = {
  filterKey: "widgetsListChanged",
  word: "widgets",
  method: "notifications/widgets/list_changed",
  notificationType: "WidgetListChangedNotification",
  serverCapability: ["widgets", "listChanged"],
} as const;

type Json = Record<string, any>;

/** The derived schema's JSON text; `extraType` adds one more (trivial) definition, for a second edit of it. */
export function futureSchemaText(extraType?: string): string {
  const schema = JSON.parse(readFileSync(schemaPath("2026-07-28"), "utf8")) as Json;
  const defs = schema.$defs as Json;
  const notification = structuredClone(defs.ToolListChangedNotification) as Json;
  notification.description = `An optional notification from the server to the client, informing it that the list of widgets it offers has changed. Delivered on a listen stream that asked for \`${FUTURE_KIND.filterKey}\`.`;
  notification.properties.method.const = FUTURE_KIND.method;
  defs[FUTURE_KIND.notificationType] = notification;
  defs.ServerNotification.anyOf.push({ $ref: `#/$defs/${FUTURE_KIND.notificationType}` });
  defs.SubscriptionFilter.properties[FUTURE_KIND.filterKey] = {
    description: `If true, receive {@link ${FUTURE_KIND.notificationType}}.`,
    type: "boolean",
  };
  defs.ServerCapabilities.properties.widgets = {
    description: "Present if the server offers any widgets.",
    properties: { listChanged: { description: "Whether this server supports notifications for changes to the widget list.", type: "boolean" } },
    type: "object",
  };
  if (extraType !== undefined) defs[extraType] = { description: "A definition a later edit of the schema adds.", type: "object" };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
