import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TokenCache } from "../../../packages/runtime/src/auth/token-cache.js";
import { TokenPrincipal } from "../../../packages/runtime/src/auth/principal.js";

const principal = (subject: string) => new TokenPrincipal({ issuer: "https://as.example", subject }, [], undefined);

describe("the verified-token cache", () => {
  test("a kept token is served until its expiry, never after", () => {
    let now = 0;
    const cache = new TokenCache({ maxEntries: 10, maxBytes: 1000 }, () => now);
    cache.set("a.b.c", principal("alice"), 1_000);
    assert.equal(cache.get("a.b.c")?.subject, "alice");
    now = 1_001;
    assert.equal(cache.get("a.b.c"), undefined);
    assert.equal(cache.size, 0);
  });

  test("the cache is bounded by entries and by bytes, the least recently used evicted first", () => {
    const cache = new TokenCache({ maxEntries: 2, maxBytes: 12 }, () => 0);
    cache.set("aaaa", principal("a"), 10);
    cache.set("bbbb", principal("b"), 10);
    assert.ok(cache.get("aaaa"), "a is now the most recent");
    cache.set("cccc", principal("c"), 10);
    assert.equal(cache.size, 2);
    assert.equal(cache.get("bbbb"), undefined, "b was the least recently used");
    // Held: aaaa, cccc (8 bytes). Eight more bytes go over 12: the older one, aaaa, goes.
    cache.set("dddddddd", principal("d"), 10);
    assert.equal(cache.get("aaaa"), undefined);
    assert.equal(cache.get("cccc")?.subject, "c");
    assert.equal(cache.get("dddddddd")?.subject, "d");
    const tooLarge = new TokenCache({ maxEntries: 2, maxBytes: 3 }, () => 0);
    tooLarge.set("abcd", principal("x"), 10);
    assert.equal(tooLarge.size, 0, "a token larger than the whole budget is not kept");
  });
});
