import assert from "node:assert/strict";
import { test } from "node:test";
import { bindTools } from "../../../packages/runtime/src/client/index.js";

test("bindTools makes every tool name an own key, __proto__ and Object's own names included", async () => {
  const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "greet"] as const;
  const calls: string[] = [];
  const tools = bindTools(names as unknown as string[], async (name) => {
    calls.push(name);
    return { content: [], isError: false } as never;
  });
  assert.equal(Object.getPrototypeOf(tools), Object.prototype, "the binding's prototype is untouched");
  assert.deepEqual(Object.keys(tools), [...names]);
  for (const name of names) await (tools as Record<string, (args: object) => Promise<unknown>>)[name]!({});
  assert.deepEqual(calls, [...names]);
});
