/**
 * What the runtime sends for tasks, validated against the schema it was generated from: the
 * 2026-07-28 core with the tasks extension merged in (the same merge `mcp-gen types` does).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { extensionLocation, loadExtensions, mergeExtensions } from "../../../cli/generate/extend.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { createServer, inputRequest, McpError, runAsTask } from "../../../packages/runtime/src/index.js";
import { schemaPath } from "../../support/schemas.js";
import { Peer, REQUEST_META } from "../../support/runtime-peer.js";

const TASKS = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { ...REQUEST_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };

async function validators() {
  const merged = mergeExtensions(await loadSchema(schemaPath("2026-07-28")), await loadExtensions([TASKS])).schema.json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: "mcp", $defs: merged.$defs as object });
  return (name: string) => {
    const validate = ajv.getSchema(`mcp#/$defs/${name}`)!;
    return (value: unknown) => assert.ok(validate(value), `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
  };
}

describe("tasks on the wire match the merged schema", () => {
  it("the extension schema is valid JSON Schema 2020-12", () => {
    const ajv = new Ajv2020({ strict: false });
    assert.equal(ajv.validateSchema(JSON.parse(readFileSync(extensionLocation(TASKS), "utf8"))), true, ajv.errorsText(ajv.errors));
  });

  it("CreateTaskResult, every GetTaskResult status, the acks and notifications/tasks validate", { timeout: 20_000 }, async () => {
    const check = await validators();
    const server = createServer({ name: "wire", version: "1" });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    server.addTool({ name: "job", inputSchema: { type: "object" } }, () =>
      runAsTask(async (task) => {
        await task.ask({ q: inputRequest.elicit({ mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } }) });
        await finished;
        return { content: [{ type: "text", text: "ok" }] };
      }),
    );
    const peer = await Peer.connect(server, "test");
    const created = (await peer.request("tools/call", { name: "job", _meta: WITH_TASKS })).result;
    check("CreateTaskResult")(created);
    const taskId = created.taskId;
    const stream = peer.send("subscriptions/listen", { notifications: { taskIds: [taskId] }, _meta: WITH_TASKS });
    await peer.waitFor((m) => m.method === "notifications/subscriptions/acknowledged", "the ack");
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 100 && !seen.has("input_required"); attempt++) {
      const got = (await peer.request("tasks/get", { taskId, _meta: WITH_TASKS })).result;
      check("GetTaskResult")(got);
      seen.add(got.status);
    }
    const ack = (await peer.request("tasks/update", { taskId, inputResponses: { q: { action: "accept", content: {} } }, _meta: WITH_TASKS })).result;
    check("UpdateTaskResult")(ack);
    finish();
    await peer.waitFor((m) => m.method === "notifications/tasks" && m.params.status === "completed", "completion");
    check("GetTaskResult")((await peer.request("tasks/get", { taskId, _meta: WITH_TASKS })).result);
    check("CancelTaskResult")((await peer.request("tasks/cancel", { taskId, _meta: WITH_TASKS })).result);
    const notifications = peer.stream(stream).filter((m) => m.method === "notifications/tasks");
    assert.ok(notifications.length >= 2);
    for (const notification of notifications) check("TaskStatusNotification")(notification);
    await server.close();
  });

  it("a failed and a cancelled task validate too", { timeout: 20_000 }, async () => {
    const check = await validators();
    const server = createServer({ name: "wire", version: "1" });
    server.addTool({ name: "crash", inputSchema: { type: "object" } }, () =>
      runAsTask(async () => {
        throw new McpError(-32603, "boom");
      }),
    );
    server.addTool({ name: "hang", inputSchema: { type: "object" } }, () =>
      runAsTask((task) => new Promise((resolve) => task.signal.addEventListener("abort", () => resolve({ content: [] })))),
    );
    const peer = await Peer.connect(server, "test");
    const crash = (await peer.request("tools/call", { name: "crash", _meta: WITH_TASKS })).result.taskId;
    let failed: any;
    for (let attempt = 0; attempt < 100 && failed?.status !== "failed"; attempt++)
      failed = (await peer.request("tasks/get", { taskId: crash, _meta: WITH_TASKS })).result;
    assert.equal(failed.status, "failed");
    check("GetTaskResult")(failed);
    const hang = (await peer.request("tools/call", { name: "hang", _meta: WITH_TASKS })).result.taskId;
    await peer.request("tasks/cancel", { taskId: hang, _meta: WITH_TASKS });
    const cancelled = (await peer.request("tasks/get", { taskId: hang, _meta: WITH_TASKS })).result;
    assert.equal(cancelled.status, "cancelled");
    check("GetTaskResult")(cancelled);
    await server.close();
  });
});
