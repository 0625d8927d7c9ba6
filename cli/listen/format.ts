/**
 * Lines for a person watching `mcp-gen listen`: one per event, stable wording, JSON
 * printed compactly so a line can be copied into a test or a bug report.
 */
import { LEGACY_VERSION, PROTOCOL_VERSION, type SubscriptionFilter } from "../../generated/index.js";
import { terminalText } from "../toolbox/escape.js";
import type { Discovered, ListenEvent } from "./listen.js";

/** Every line carries the server's own strings, so each is escaped for the terminal as a whole. */
export function formatEvent(event: ListenEvent): string {
  return [eventText(event)].flat().map(terminalText).join("\n");
}

function eventText(event: ListenEvent): string | string[] {
  switch (event.kind) {
    case "discovered":
      return formatDiscovered(event.discovered);
    case "legacy":
      return `no ${PROTOCOL_VERSION} here (${event.reason}): opening a ${LEGACY_VERSION} session (initialize, then its notification stream)`;
    case "listening":
      return `listening for: ${formatFilter(event.filter)}${event.defaulted ? " (everything the server advertises)" : ""}`;
    case "ack": {
      const honored = formatFilter(event.honored) || "nothing";
      const flag = event.notHonored.length > 0 ? `; NOT honored: ${event.notHonored.join(", ")}` : "";
      return `acknowledged: ${honored}${flag}`;
    }
    case "notification":
      return `notification ${event.notification.method} ${JSON.stringify(event.notification.params ?? {})}`;
    case "ended":
      return event.how === "complete"
        ? `ended: complete result (subscription ${JSON.stringify(event.subscriptionId)})`
        : "ended: stopped by mcp-gen listen (stream closed)";
  }
}

function formatDiscovered(discovered: Discovered): string[] {
  const who = discovered.serverInfo?.name ? `${discovered.serverInfo.name} ${discovered.serverInfo.version ?? ""}`.trim() : "(no serverInfo)";
  const lines = [`server: ${who}; protocol versions: ${discovered.supportedVersions.join(", ") || "(none)"}`];
  const groups = Object.keys(discovered.capabilities).sort();
  if (groups.length === 0) lines.push("advertises: nothing");
  for (const group of groups) {
    const value = discovered.capabilities[group];
    const flags =
      value !== null && typeof value === "object"
        ? Object.keys(value)
            .sort()
            .filter((flag) => (value as Record<string, unknown>)[flag] !== false)
        : [];
    lines.push(`advertises: ${group}${flags.length > 0 ? ` (${flags.join(", ")})` : ""}`);
  }
  return lines;
}

export function formatFilter(filter: SubscriptionFilter): string {
  const parts: string[] = [];
  for (const key of Object.keys(filter).sort()) {
    const value = (filter as Record<string, unknown>)[key];
    if (value === true) parts.push(key);
    else if (Array.isArray(value)) parts.push(`${key} [${value.join(", ")}]`);
  }
  return parts.join(", ");
}
