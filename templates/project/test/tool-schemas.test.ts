/**
 * Clients hand each tool's schemas to a model, and model providers accept only part of JSON
 * Schema: a `$ref` Gemini cannot follow, an optional property OpenAI's strict mode refuses,
 * can make a tool that is never called. This test lists the tools as a client does and
 * prints what each provider would reject or drop, with the JSON pointer, as warnings: it
 * never fails. `npx mcp-gen lint --strict` (after `npm run build`) makes any finding an error.
 * The rules, each with the documentation it comes from, are the runtime's
 * `schema-portability/provider-rules.ts`.
 */
import { test } from "node:test";
import type { AppEvents } from "../src/events.js";
import { InProcessEventSource, loadTesting } from "../src/mcp.js";
import { createAppServer } from "../src/server.js";

const { connectTestClient, lintToolSchemas } = await loadTesting();

test("every tool's schemas are checked against what model providers accept (findings are warnings)", async (t) => {
  const server = createAppServer(new InProcessEventSource<AppEvents>());
  const client = await connectTestClient(server);
  try {
    const { tools } = await client.request("tools/list");
    const findings = lintToolSchemas(tools);
    for (const finding of findings) {
      const where = `${finding.tool} ${finding.side} at "${finding.pointer}" (${finding.keyword})`;
      t.diagnostic(`warning: ${where}: ${finding.provider} ${finding.effect}: ${finding.says}`);
    }
    t.diagnostic(`${findings.length} schema finding(s) in ${tools.length} tool(s)`);
  } finally {
    await client.close();
    await server.close();
  }
});
