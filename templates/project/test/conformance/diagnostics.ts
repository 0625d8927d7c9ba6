/**
 * The one diagnostic tool of the conformance suite this server is given while the suite runs
 * (never in src/): `test_trigger_tool_change`, which the suite's `server-stateless` scenario
 * (2026-07-28) calls while a `subscriptions/listen` stream is open, to see
 * `notifications/tools/list_changed` reach it. Without the tool, that scenario can only wait
 * out its listen windows (about 2.3 s of idle time per run) and warn; with it, the suite checks
 * that this server's tool-change handler delivers, and the wait ends when the notification does.
 *
 * The tool publishes what `toggle_greet` publishes on the "tool-changes" topic of the event
 * source (src/handlers/tool-changes.ts): every listen stream that asked for tool changes is
 * told the list changed. The list itself stays as it is. A server without that handler
 * declares no `tools.listChanged`, and the suite skips the check.
 */
import type { AppEvents } from "../../src/events.js";
import type { EventSource, Server } from "../../src/mcp.js";

export const DIAGNOSTIC_TOOLS = ["test_trigger_tool_change"];

/** The topic and event src/handlers/tool-changes.ts listens for, whether or not AppEvents still has it. */
type ToolChangeTopic = { "tool-changes": { kind: "toolsListChanged" } };

export function addSuiteDiagnostics(server: Server, events: EventSource<AppEvents>): void {
  const announce = events as unknown as EventSource<ToolChangeTopic>;
  server.addTool(
    {
      name: "test_trigger_tool_change",
      description: "Tells every listen stream asking for tool changes that the tool list changed.",
      inputSchema: { type: "object" },
    },
    async () => {
      await announce.publish("tool-changes", { kind: "toolsListChanged" });
      return { content: [{ type: "text", text: "tool list change announced" }] };
    },
  );
}
