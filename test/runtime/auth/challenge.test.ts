/**
 * The `WWW-Authenticate` challenge stays within RFC 6750's auth-param grammar whatever a
 * refused token holds: unverified header or payload fields never break the answer.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, SignJWT } from "jose";
import { createServer, oauthHttpOptions, serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/index.js";
import { freePort } from "../../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer } from "../../support/oidc-provider.js";
import { post, request } from "../transports/http-helpers.js";

let as: AuthorizationServer;
let http: HttpServerHandle;
let resource: string;

before(async () => {
  as = await startAuthorizationServer([]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({ name: "challenge-test", version: "1.0.0" });
  http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
});

after(async () => {
  await http?.close();
  await as?.close();
});

/** RFC 6750 §3: each auth-param a quoted string of %x20-21 / %x23-5B / %x5D-7E. */
const AUTH_PARAMS = /^Bearer (\w+="[\x20\x21\x23-\x5B\x5D-\x7E]*")(, \w+="[\x20\x21\x23-\x5B\x5D-\x7E]*")*$/;

describe("the bearer challenge", () => {
  test("a token whose unverified kid or iss holds control or non-Latin-1 characters gets 401 with a well-formed challenge", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const forge = (kid: string, iss: string, alg = "RS256") =>
      new SignJWT({ client_id: "x" })
        .setProtectedHeader({ alg, kid })
        .setIssuer(iss)
        .setAudience(resource)
        .setSubject("x")
        .setExpirationTime("5m")
        .sign(privateKey);
    const tokens = [
      await forge("k\u0001\u001f\u007f", as.issuer),
      await forge("ключ\u2028", as.issuer),
      await forge("k", `${as.issuer}\r\nx-injected: 1`),
      await forge("k", "https://évil.example/ω\u0000"),
      await forge('k"\\', 'https://a"b\\c'),
      // jose signs with RS256 whatever the header says; the algorithm is refused before the signature is checked.
      (await forge("k", as.issuer)).replace(/^[^.]+/, Buffer.from(JSON.stringify({ alg: "RS256\u0001ω", kid: "k" })).toString("base64url")),
    ];
    for (const token of tokens) {
      const answer = await post(http.url, request(1, "tools/list"), { authorization: `Bearer ${token}` });
      assert.equal(answer.status, 401, token);
      const challenge = answer.headers.get("www-authenticate") ?? "";
      assert.match(challenge, AUTH_PARAMS);
      assert.match(challenge, /error="invalid_token"/);
      assert.equal(answer.headers.get("x-injected"), null);
    }
  });
});
