/**
 * Per-client shares at scale behind the README's HAProxy recipe in the variant it documents
 * for the PROXY protocol: `option forwardfor` taken out, `send-proxy-v2` on the
 * `default-server` line, every replica started with `PROXY_PROTOCOL=1` beside
 * `TRUSTED_PROXIES=127.0.0.1`. No header carries the address, so only the PROXY protocol can
 * give each client its own share; see client-shares.ts for what is opened and why.
 */
import assert from "node:assert/strict";
import { describeClientShares } from "./client-shares.js";

/** The recipe changed as the README says: its `default-server` line as the README writes it with `send-proxy-v2`, and no `option forwardfor`. */
function proxyProtocolRecipe(recipe: string, readme: string): string {
  const documented = /^ *default-server .* send-proxy-v2$/m.exec(readme);
  assert.ok(documented !== null, "the README shows the default-server line with send-proxy-v2");
  const changed = recipe.replace(/^ *option forwardfor\n/m, "").replace(/^ *default-server .*$/m, documented[0]);
  assert.doesNotMatch(changed, /forwardfor/);
  assert.match(changed, /^ *default-server .* send-proxy-v2$/m);
  return changed;
}

describeClientShares("the README's HAProxy recipe with send-proxy-v2 at the default shares: each client address has its own", {
  /** 127.0.0.2 .. 127.0.0.21. */
  addresses: Array.from({ length: 20 }, (_, i) => `127.0.0.${2 + i}`),
  // The X-Forwarded-For test's load: 2,000 sessions and 500 streams.
  sessionsEach: 100,
  listensEach: 25,
  greedyAddress: "127.0.0.22",
  env: { TRUSTED_PROXIES: "127.0.0.1", PROXY_PROTOCOL: "1" },
  variant: proxyProtocolRecipe,
  // Not the trusted 127.0.0.1: from there a connection without a header is closed.
  probeFrom: "127.0.0.254",
});
