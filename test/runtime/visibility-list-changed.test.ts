/**
 * Telling one principal that its lists changed: a role granted to it makes a tool visible, and
 * a subscription handler keyed on the stream's principal (`channel.meta.principal`) sends the
 * list change to that principal's open listen stream (2026-07-28) and to its initialize-era
 * session (the 1.x SDK client), and to no other principal's. Tokens come from a real
 * authorization server (oidc-provider on loopback).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  createServer,
  InProcessEventSource,
  oauthHttpOptions,
  serveHttp,
  TokenPrincipal,
  type HttpServerHandle,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../packages/runtime/src/index.js";
import { freePort } from "../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../support/oidc-provider.js";
import { openListen, type OpenStream } from "./transports/http-helpers.js";

const ALPHA: TestClient = { clientId: "alpha", clientSecret: "alpha-secret", scope: "mcp:read" };
const BETA: TestClient = { clientId: "beta", clientSecret: "beta-secret", scope: "mcp:read" };
const TOOLS_CHANGED = "notifications/tools/list_changed";
/** A marker sent to one principal after another's change: had that change reached it, the change would come first. */
const PROMPTS_CHANGED = "notifications/prompts/list_changed";
const SLOW = { timeout: 60_000 };
const WAIT_LIMIT_MS = 10_000;

/** One topic per principal and list: a role change wakes only that principal's streams. */
type Topics = { [principal: `${"tools" | "prompts"}:${string}`]: Record<string, never> };

const roles = new Map<string, Set<string>>();
const clientIdOf = (principal: unknown): string | undefined => (principal instanceof TokenPrincipal ? principal.clientId : undefined);
const isAnalyst = (principal: unknown): boolean => roles.get(clientIdOf(principal) ?? "")?.has("analyst") === true;
/** Streams subscribed per principal, so a test grants only once every stream listens. */
const listening = new Map<string, number>();

function perPrincipalHandler(events: InProcessEventSource<Topics>): SubscriptionHandler<Unsubscribe[]> {
  return {
    subscribe(filter, channel) {
      const principal = clientIdOf(channel.meta["principal"]);
      if (principal === undefined) return { stream: [] };
      const joined: Unsubscribe[] = [];
      if (filter.toolsListChanged) joined.push(events.subscribe(`tools:${principal}`, () => channel.post(TOOLS_CHANGED)));
      if (filter.promptsListChanged) joined.push(events.subscribe(`prompts:${principal}`, () => channel.post(PROMPTS_CHANGED)));
      listening.set(principal, (listening.get(principal) ?? 0) + 1);
      return { stream: joined };
    },
    handleMessage(message, channel, state) {
      channel.sendNotification({ method: message as string });
      return { stream: state };
    },
    handleClose(_channel, state) {
      for (const leave of state) leave();
    },
    subscriptionCapabilities: () => ({ toolsListChanged: true, promptsListChanged: true }),
  };
}

let as: AuthorizationServer;
let http: HttpServerHandle;
let resource: string;
const events = new InProcessEventSource<Topics>();

/** Grants a role and tells that principal's clients, and only them, that their tool list changed. */
async function grant(clientId: string, role: string): Promise<void> {
  roles.set(clientId, new Set([...(roles.get(clientId) ?? []), role]));
  await events.publish(`tools:${clientId}`, {});
}

before(async () => {
  as = await startAuthorizationServer([ALPHA, BETA]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({ name: "visibility-list-changed", version: "1.0.0" });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => ({ content: [] }));
  server.addTool({ name: "reports", inputSchema: { type: "object" } }, () => ({ content: [] }), { visibility: { when: isAnalyst } });
  server.addPrompt({ name: "hello" }, () => ({ messages: [] }));
  server.addSubscriptionHandler(perPrincipalHandler(events));
  http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
});

after(async () => {
  await http?.close();
  await as?.close();
});

async function until<T>(what: string, find: () => T | undefined): Promise<T> {
  const giveUpAt = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The next message on a listen stream that is not its acknowledgement. */
async function nextNotification(stream: OpenStream): Promise<{ method?: string } | undefined> {
  for (let read = 0; read < 5; read++) {
    const message = await stream.next();
    if (message === undefined || message.method !== "notifications/subscriptions/acknowledged") return message;
  }
  return undefined;
}

describe("a role granted to one principal is told to its clients alone", () => {
  test("its listen stream and its initialize-era session receive the tool list change; another principal's do not", SLOW, async () => {
    const tokens = { alpha: await as.token(ALPHA, resource, ALPHA.scope), beta: await as.token(BETA, resource, BETA.scope) };
    const legacy = async (token: string) => {
      const client = new ClientV1({ name: "v1", version: "1.0.0" });
      const heard: string[] = [];
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void heard.push(notification.method));
      client.setNotificationHandler(PromptListChangedNotificationSchema, (notification) => void heard.push(notification.method));
      await client.connect(new HttpV1(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return { client, heard };
    };
    const alphaSession = await legacy(tokens.alpha);
    const betaSession = await legacy(tokens.beta);
    const both = { toolsListChanged: true, promptsListChanged: true };
    const alphaStream = await openListen(http.url, 1, both, { authorization: `Bearer ${tokens.alpha}` });
    const betaStream = await openListen(http.url, 2, both, { authorization: `Bearer ${tokens.beta}` });
    try {
      assert.equal(alphaStream.status, 200);
      await until("both principals' session and listen streams", () =>
        (listening.get("alpha") ?? 0) >= 2 && (listening.get("beta") ?? 0) >= 2 ? true : undefined,
      );
      assert.deepEqual(
        (await alphaSession.client.listTools()).tools.map((tool) => tool.name),
        ["greet"],
      );

      await grant("alpha", "analyst");
      assert.equal((await nextNotification(alphaStream))?.method, TOOLS_CHANGED);
      await until("alpha's session to hear the change", () => (alphaSession.heard.length > 0 ? true : undefined));
      assert.deepEqual(
        (await alphaSession.client.listTools()).tools.map((tool) => tool.name),
        ["greet", "reports"],
      );
      assert.deepEqual(
        (await betaSession.client.listTools()).tools.map((tool) => tool.name),
        ["greet"],
      );

      // Beta's first notification on either path is the marker sent after alpha's change: alpha's never reached it.
      await events.publish("prompts:beta", {});
      assert.equal((await nextNotification(betaStream))?.method, PROMPTS_CHANGED);
      await until("beta's session to hear the marker", () => (betaSession.heard.length > 0 ? true : undefined));
      assert.deepEqual(betaSession.heard, [PROMPTS_CHANGED]);
      await grant("beta", "analyst");
      assert.equal((await nextNotification(betaStream))?.method, TOOLS_CHANGED);
      await until("beta's session to hear its change", () => (betaSession.heard.length > 1 ? true : undefined));
      assert.deepEqual(betaSession.heard, [PROMPTS_CHANGED, TOOLS_CHANGED]);
      assert.deepEqual(alphaSession.heard, [TOOLS_CHANGED]);
      assert.deepEqual(
        (await betaSession.client.listTools()).tools.map((tool) => tool.name),
        ["greet", "reports"],
      );
    } finally {
      alphaStream.close();
      betaStream.close();
      await alphaSession.client.close();
      await betaSession.client.close();
    }
  });
});
