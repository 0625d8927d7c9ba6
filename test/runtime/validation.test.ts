import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Validator } from "@cfworker/json-schema";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  ajvSchemaValidator,
  cfworkerSchemaValidator,
  createServer,
  lazySchemaValidator,
  ToolOutputError,
  type RuntimeEvent,
  type SchemaValidator,
} from "../../packages/runtime/src/index.js";
import { Peer, REQUEST_META } from "../support/runtime-peer.js";
import type { Tool } from "../../generated/index.js";

const T = { timeout: 20_000 };

const INPUT: Tool["inputSchema"] = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 } },
  required: ["city"],
  additionalProperties: false,
};
const OUTPUT: Tool["inputSchema"] = { type: "object", properties: { temperature: { type: "number" } }, required: ["temperature"] };

/** Both adapters the runtime ships, and Ajv made on first use (the scaffold's default), held to the same rules. */
const VALIDATORS: Record<string, () => SchemaValidator> = {
  ajv: () => ajvSchemaValidator(new Ajv2020({ strict: false })),
  "@cfworker/json-schema": () => cfworkerSchemaValidator(Validator),
  "ajv, made on first use": () => lazySchemaValidator(() => ajvSchemaValidator(new Ajv2020({ strict: false }))),
};

for (const [library, makeValidator] of Object.entries(VALIDATORS)) {
  function weatherServer(runs: unknown[], events: RuntimeEvent[] = [], answer: (args: Record<string, unknown>) => object = () => ({ temperature: 21 })) {
    const server = createServer({
      name: "v",
      version: "1",
      validator: makeValidator(),
      onEvent: (event) => events.push(event),
    });
    server.addTool({ name: "weather", inputSchema: INPUT, outputSchema: OUTPUT }, (args) => {
      runs.push(args);
      const structuredContent = answer(args) as Record<string, unknown>;
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
    });
    return server;
  }

  describe(`tool input and output checked against their schemas (${library})`, () => {
    it("arguments that violate inputSchema get a tool execution error (isError) naming the violation, and the tool never runs", T, async () => {
      const runs: unknown[] = [];
      const server = weatherServer(runs);
      const peer = await Peer.connect(server, "test");
      for (const args of [{}, { city: "" }, { city: "Oslo", days: 9 }, { city: "Oslo", extra: true }]) {
        const { result, error } = await peer.request("tools/call", { name: "weather", arguments: args });
        assert.equal(error, undefined);
        assert.equal(result.isError, true, JSON.stringify(args));
        assert.match(result.content[0].text, /^Invalid arguments for tool weather: \//);
        assert.equal(result.structuredContent, undefined);
      }
      assert.deepEqual(runs, []);
      await server.close();
    });

    it("valid arguments run the tool and a conforming result is sent with its structured content", T, async () => {
      const runs: unknown[] = [];
      const server = weatherServer(runs);
      const peer = await Peer.connect(server, "test");
      const { result } = await peer.request("tools/call", { name: "weather", arguments: { city: "Oslo", days: 2 } });
      assert.deepEqual(result.structuredContent, { temperature: 21 });
      assert.equal(result.isError, undefined);
      assert.deepEqual(runs, [{ city: "Oslo", days: 2 }]);
      await server.close();
    });

    it("a result that violates outputSchema is not sent: the client gets -32603, the server a handler-error event", T, async () => {
      const events: RuntimeEvent[] = [];
      const server = weatherServer([], events, () => ({ temperature: "warm" }));
      const peer = await Peer.connect(server, "test");
      const response = await peer.request("tools/call", { name: "weather", arguments: { city: "Oslo" } });
      assert.equal(response.result, undefined);
      assert.equal(response.error?.code, -32603);
      assert.doesNotMatch(JSON.stringify(response.error), /warm/);
      const reported = events.find((event) => event.type === "handler-error");
      assert.ok(reported !== undefined && "error" in reported && reported.error instanceof ToolOutputError);
      assert.match((reported.error as Error).message, /\/temperature \S/, "the violation is named by its path");
      await server.close();
    });

    it("a tool with an outputSchema that returns no structured content fails the same way; an isError result passes unchecked", T, async () => {
      const server = createServer({ name: "v", version: "1", validator: makeValidator() });
      // @ts-expect-error the compile-time check refuses a result without structured content; this test holds the run-time one.
      server.addTool({ name: "bare", inputSchema: { type: "object" }, outputSchema: OUTPUT }, () => ({ content: [] }));
      server.addTool({ name: "fails", inputSchema: { type: "object" }, outputSchema: OUTPUT }, () => ({
        content: [{ type: "text", text: "no data" }],
        isError: true,
      }));
      const peer = await Peer.connect(server, "test");
      assert.equal((await peer.request("tools/call", { name: "bare" })).error?.code, -32603);
      const failed = (await peer.request("tools/call", { name: "fails" })).result;
      assert.equal(failed.isError, true);
      assert.equal(failed.content[0].text, "no data");
      await server.close();
    });

    it("2020-12 features ($defs with $anchor, if/then/else) are honoured; an unresolvable $ref is refused at addTool, never fetched", () => {
      const validator = makeValidator();
      const check = validator.compile({
        type: "object",
        $defs: { address: { $anchor: "addr", type: "object", required: ["street"] } },
        properties: { home: { $ref: "#addr" }, via: { enum: ["mail", "phone"] } },
        if: { properties: { via: { const: "phone" } }, required: ["via"] },
        then: { required: ["phone"] },
      });
      assert.deepEqual(check({ home: { street: "Main" } }), { valid: true });
      assert.equal(check({ home: {} }).valid, false);
      assert.equal(check({ via: "phone" }).valid, false);
      const server = createServer({ name: "v", version: "1", validator });
      assert.throws(
        () =>
          server.addTool({ name: "remote", inputSchema: { type: "object", properties: { a: { $ref: "http://127.0.0.1:9/x.json" } } } }, () => ({
            content: [],
          })),
        /addTool remote: its inputSchema cannot be used/,
      );
      assert.throws(
        () => server.addTool({ name: "dangling", inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } }, () => ({ content: [] })),
        /addTool dangling: its inputSchema cannot be used/,
      );
      const data = { type: "object", properties: { link: { const: { $ref: "not a schema" } } } };
      assert.deepEqual(makeValidator().compile(data)({ link: { $ref: "not a schema" } }), { valid: true }, "a $ref key inside const is data");
    });

    it("a schema whose keywords hold values of the wrong kind is refused at addTool with one line, before any call", () => {
      const server = createServer({ name: "v", version: "1", validator: makeValidator() });
      const malformed: Record<string, object> = {
        "type-name": { type: "object", properties: { a: { type: "strin" } } },
        "required-text": { type: "object", required: "a" },
        "minimum-text": { type: "object", properties: { a: { minimum: "x" } } },
        "nested-pattern": { type: "object", properties: { a: { anyOf: [{ type: "string", pattern: "(" }] } } },
      };
      for (const [name, inputSchema] of Object.entries(malformed)) {
        assert.throws(
          () => server.addTool({ name, inputSchema: inputSchema as Tool["inputSchema"] }, () => ({ content: [] })),
          (error: Error) =>
            error instanceof TypeError && error.message.startsWith(`addTool ${name}: its inputSchema cannot be used (`) && !error.message.includes("\n"),
          name,
        );
      }
      const data = { type: "object", properties: { a: { const: { type: "strin", required: "a" } } } };
      assert.deepEqual(makeValidator().compile(data)({ a: { type: "strin", required: "a" } }), { valid: true }, "keywords inside const are data");
    });

    it(
      "a number too large for a double (1e309 on the wire, Infinity once parsed) is refused as an integer and as a number under a maximum, as any violation",
      T,
      async () => {
        const runs: unknown[] = [];
        const server = createServer({ name: "v", version: "1", validator: makeValidator() });
        const inputSchema = {
          type: "object",
          properties: { count: { type: "integer" }, low: { type: "number", maximum: 100 }, list: { type: "array" } },
        } as const;
        server.addTool({ name: "measure", inputSchema, outputSchema: OUTPUT }, (args) => {
          runs.push(args);
          return { content: [], structuredContent: { temperature: 1 } };
        });
        const peer = await Peer.connect(server, "test");
        const cases: [string, string][] = [
          ['{"count":1e309}', "/count"],
          ['{"low":-1e309}', "/low"],
          ['{"list":[1,{"deep":[2,1e400]}]}', "/list/1/deep/1"],
        ];
        for (const [index, [args, place]] of cases.entries()) {
          const id = 100 + index;
          const meta = JSON.stringify(REQUEST_META);
          // The test transport sends this text as it is, so the server's own parser reads 1e309.
          const wire = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"measure","arguments":${args},"_meta":${meta}}}`;
          await peer.transport.sendMessage({ jsonrpc: "2.0", id, method: "tools/call" }, wire);
          const { result, error } = await peer.response(id);
          assert.equal(error, undefined);
          assert.equal(result.isError, true, args);
          assert.equal(result.content[0].text, `Invalid arguments for tool measure: ${place} must be a finite number`);
        }
        assert.deepEqual(runs, []);
        assert.deepEqual(makeValidator().compile(OUTPUT)({ temperature: -Infinity }), { valid: false, errors: ["/temperature must be a finite number"] });
        await server.close();
      },
    );

    it("the finite-number check walks input nested 100,000 deep without overflowing, and a cyclic value without looping", () => {
      const check = makeValidator().compile({ type: ["array", "object"] });
      assert.deepEqual(check(JSON.parse(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`)), { valid: true });
      const deep = check(JSON.parse(`${"[".repeat(100_000)}1e309${"]".repeat(100_000)}`));
      assert.ok(!deep.valid && deep.errors[0] === `${"/0".repeat(100_000)} must be a finite number`);
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic["self"] = cyclic;
      cyclic["list"] = [cyclic, { b: 2 }];
      assert.deepEqual(check(cyclic), { valid: true });
      (cyclic["list"] as object[]).push({ c: Number.NaN });
      assert.deepEqual(check(cyclic), { valid: false, errors: ["/list/2/c must be a finite number"] });
    });

    it("a violation is reported at the place it is, by its path", () => {
      const check = makeValidator().compile(INPUT);
      const result = check({ city: "Oslo", days: "many" });
      assert.equal(result.valid, false);
      assert.ok(!result.valid && result.errors.length === 1 && result.errors[0]!.startsWith("/days "), JSON.stringify(result));
    });
  });
}

describe("the validator adapters", () => {
  it("Ajv refused code generation (as Cloudflare Workers refuse it) fails addTool naming the runtime and the other adapter, not the schema", () => {
    const forbidding = ajvSchemaValidator({
      compile: () => {
        throw new EvalError("Code generation from strings disallowed for this context");
      },
    });
    const server = createServer({ name: "v", version: "1", validator: forbidding });
    assert.throws(
      () => server.addTool({ name: "weather", inputSchema: INPUT }, () => ({ content: [] })),
      /^TypeError: addTool weather: the validator cannot compile its inputSchema on this runtime \(Code generation from strings disallowed for this context\); use cfworkerSchemaValidator here$/,
    );
  });

  it("a validator made on first use is made when a value is first checked, once, and compiles each schema on its first check, once", () => {
    const made: string[] = [];
    const lazy = lazySchemaValidator(() => {
      made.push("validator");
      const ajv = ajvSchemaValidator(new Ajv2020({ strict: false }));
      return { compile: (schema) => (made.push("compile"), ajv.compile(schema)) };
    });
    const input = lazy.compile(INPUT);
    const output = lazy.compile(OUTPUT);
    assert.deepEqual(made, [], "adding schemas makes nothing");
    assert.deepEqual(input({ city: "Oslo" }), { valid: true });
    assert.equal(input({ city: 3 }).valid, false);
    assert.equal(output({}).valid, false);
    assert.deepEqual(made, ["validator", "compile", "compile"]);
    assert.throws(() => lazy.compile({ type: "object", required: "city" }), /required/, "a malformed schema is still refused when given");
  });

  it("without a validator nothing is checked (the runtime core validates nothing by itself)", T, async () => {
    const server = createServer({ name: "v", version: "1" });
    server.addTool({ name: "weather", inputSchema: INPUT }, (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }));
    const peer = await Peer.connect(server, "test");
    const { result } = await peer.request("tools/call", { name: "weather", arguments: { days: "x" } });
    assert.equal(result.content[0].text, '{"days":"x"}');
    await server.close();
  });
});
