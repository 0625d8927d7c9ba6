import assert from "node:assert/strict";
import { test } from "node:test";
import { registeredPrimitives } from "../../../cli/scaffold/registered.js";

test("registrations are read from object literals in the call and from consts of the same file", async () => {
  const text = `
const greet = { name: "greet", inputSchema: { type: "object" } } satisfies Tool;
const about = { uri: "app://about", name: "about" } as const;
export function add(server: Server) {
  server.addTool(greet, run);
  server.addTool({ name: \`echo\`, inputSchema: { type: "object" } }, run);
  server.addResource(about, read);
  server.addResourceTemplate({ uriTemplate: "app://x/{id}", name: "x" }, read);
  server.addPrompt({ name: "review", arguments: [{ name: "code" }] }, get);
}`;
  const found = await registeredPrimitives([{ path: "src/a.ts", text }]);
  assert.deepEqual(
    found.map(({ call, field, value }) => `${call} ${field}=${value}`),
    [
      "addTool name=greet",
      "addTool name=echo",
      "addResource name=about",
      "addResource uri=app://about",
      "addResourceTemplate name=x",
      "addResourceTemplate uriTemplate=app://x/{id}",
      "addPrompt name=review",
    ],
  );
  assert.ok(found.every((entry) => entry.path === "src/a.ts"));
});

test("names computed at run time, other calls and other fields are not registrations", async () => {
  const text = `
server.addTool({ name: prefix + "x", inputSchema: {} }, run);
server.addTool(makeTool(), run);
server.addTool({ title: "t" }, run);
list.push({ name: "not-a-tool" });
addTool({ name: "bare-call" }, run);`;
  assert.deepEqual(await registeredPrimitives([{ path: "src/b.ts", text }]), []);
});
