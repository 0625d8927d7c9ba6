/**
 * Introspection (RFC 7662) as the resource server asks for it, against a real authorization
 * server (oidc-provider on loopback): answers kept for a short time and never past a token's
 * `exp`, one call per token however many requests carry it, and a bounded number of calls
 * at once, so made-up tokens cannot turn into as many calls carrying this server's
 * credentials.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createResourceServer, type OAuthOptions } from "../../../packages/runtime/src/index.js";
import { INTROSPECTION_CLIENT, startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../support/oidc-provider.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
// Two seconds: `exp` counts whole seconds from the second, so a one-second token may be expired on its first use.
const SHORT_LIVED: TestClient = { clientId: "short", clientSecret: "short-secret", scope: "mcp:read", tokenTtlSeconds: 2 };
const RESOURCE = "http://127.0.0.1:1/mcp";
const INTROSPECTION_PATH = "/token/introspection";

let as: AuthorizationServer;

before(async () => {
  as = await startAuthorizationServer([READER, SHORT_LIVED]);
});

after(async () => {
  await as?.close();
});

function resourceServer(introspection: Partial<NonNullable<OAuthOptions["introspection"]>> = {}) {
  return createResourceServer({
    resource: RESOURCE,
    issuers: as.issuer,
    clockToleranceSeconds: 0,
    introspection: { ...INTROSPECTION_CLIENT, ...introspection },
  });
}

const introspections = () => as.hits.get(INTROSPECTION_PATH) ?? 0;
const authenticate = (server: ReturnType<typeof resourceServer>, token: string) => server.authenticate({ headers: { authorization: `Bearer ${token}` } });

describe("introspection", () => {
  test("answers, active and inactive, are kept for cacheMs, and a token in flight is introspected once", async () => {
    const server = resourceServer({ cacheMs: 60_000 });
    const good = await as.token(READER, RESOURCE, "mcp:read", true);
    const start = introspections();
    for (let round = 0; round < 2; round++) {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => authenticate(server, good)));
      assert.ok(outcomes.every((outcome) => "principal" in outcome));
    }
    assert.equal(introspections() - start, 1, "twenty requests at once, then twenty more: one introspection");
    for (let round = 0; round < 2; round++) {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => authenticate(server, "made-up-token")));
      assert.ok(outcomes.every((outcome) => "rejection" in outcome && outcome.rejection.status === 401));
    }
    assert.equal(introspections() - start, 2, "an inactive answer is kept too");
  });

  test("an active token's kept answer is not used past its exp", async () => {
    const server = resourceServer({ cacheMs: 60_000 });
    const token = await as.token(SHORT_LIVED, RESOURCE, "mcp:read", true);
    const first = await authenticate(server, token);
    assert.ok("principal" in first, JSON.stringify(first));
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const outcome = await authenticate(server, token);
    assert.ok("rejection" in outcome && outcome.rejection.status === 401, JSON.stringify(outcome));
  });

  test("at most maxConcurrent introspections run at once; maxWaiting more wait for a turn, and the rest get 503 with Retry-After", async () => {
    const bounded = resourceServer({ maxConcurrent: 2, maxWaiting: 100 });
    const start = introspections();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => authenticate(bounded, `made-up-${index}`)));
    assert.ok(outcomes.every((outcome) => "rejection" in outcome && outcome.rejection.status === 401));
    assert.equal(introspections() - start, 20);
    assert.ok((as.peaks.get(INTROSPECTION_PATH) ?? 0) <= 2, `peak ${as.peaks.get(INTROSPECTION_PATH)}`);

    const narrow = resourceServer({ maxConcurrent: 1, maxWaiting: 3 });
    const before = introspections();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => authenticate(narrow, `other-${index}`)));
    const statuses = answers.map((outcome) => ("rejection" in outcome ? outcome.rejection.status : 200));
    assert.deepEqual(statuses, [401, 401, 401, 401, 503, 503, 503, 503, 503, 503]);
    const refused = answers[9]!;
    assert.ok("rejection" in refused);
    assert.equal(refused.rejection.headers["retry-after"], "5");
    assert.match(refused.rejection.headers["www-authenticate"] ?? "", /^Bearer resource_metadata=/);
    assert.equal(introspections() - before, 4);
  });
});
