import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StdioServerTransport } from "../../packages/runtime/src/index.js";
import {
  getTransport,
  HttpClientTransport,
  InProcessTransport,
  StdioClientTransport,
  supportsPush,
  TestTransport,
  type ReceivedMessage,
  type Transport,
} from "../../packages/runtime/src/transports/index.js";

class PullOnly implements Transport {
  async connect() {}
  async sendMessage() {}
  receiveMessage(): Promise<ReceivedMessage> {
    return new Promise(() => {});
  }
  async close() {}
}

describe("transport lookup", () => {
  it("getTransport finds every built-in by name", () => {
    assert.equal(getTransport("stdio"), StdioServerTransport);
    assert.equal(getTransport("stdio-client"), StdioClientTransport);
    assert.equal(getTransport("test"), TestTransport);
    assert.equal(getTransport("inprocess"), InProcessTransport);
    assert.equal(getTransport("http"), HttpClientTransport);
  });

  it("getTransport given a class checks it implements the contract", () => {
    assert.equal(getTransport(PullOnly), PullOnly);
    assert.throws(() => getTransport(class NotOne {} as never), /NotOne is not a transport: it has no connect\(\) method/);
  });

  it("getTransport names the known transports when a name is unknown", () => {
    assert.throws(() => getTransport("carrier-pigeon"), /unknown transport "carrier-pigeon"; known transports: .*inprocess.*stdio.*test/);
  });

  it("supportsPush is true for push transports and false for pull-only ones", () => {
    assert.equal(supportsPush("test"), true);
    assert.equal(supportsPush(InProcessTransport), true);
    assert.equal(supportsPush(new StdioClientTransport({ command: "true" })), true);
    assert.equal(supportsPush(PullOnly), false);
    assert.equal(supportsPush(new PullOnly()), false);
  });
});
