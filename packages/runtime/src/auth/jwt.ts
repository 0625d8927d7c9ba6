/**
 * JWT access tokens (RFC 9068): the signature checked with the issuer's key, and the claims
 * this server relies on: `iss` one of the trusted issuers, `aud` this resource (RFC 8707),
 * `exp` in the future and `nbf` in the past (within the clock tolerance). Only asymmetric
 * algorithms are accepted: a resource server holds no secret an issuer could sign with.
 */
import { AuthServerError } from "./fetch-json.js";
import type { IssuerKeys } from "./issuer-keys.js";
import { loadJose, type JoseFailure, type JoseModule } from "./jose.js";

export const ASYMMETRIC_ALGORITHMS: readonly string[] = Object.freeze([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);

/** What a token check found: its verified claims, or why it failed (`unavailable`: the issuer could not be asked). */
export type TokenCheck =
  | { readonly ok: true; readonly issuer: string; readonly claims: Readonly<Record<string, unknown>>; readonly introspected?: true }
  | { readonly ok: false; readonly unavailable?: true; readonly reason: string };

export interface JwtSettings {
  readonly audience: string;
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  /** jose as the application imported it; undefined: imported here on first use. */
  readonly jose?: JoseModule | undefined;
}

const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** True when the token is shaped as a signed JWT (three base64url parts); anything else is opaque. */
export function isJwtShaped(token: string): boolean {
  return JWS_COMPACT.test(token);
}

/** Verifies a JWT-shaped token against the keys of the issuer it names, which must be one of `issuers`. */
export async function verifyJwt(token: string, issuers: ReadonlyMap<string, IssuerKeys>, settings: JwtSettings): Promise<TokenCheck> {
  const peeked = peek(token, issuers);
  if ("reason" in peeked) return { ok: false, reason: peeked.reason };
  const { header, keys } = peeked;
  if (!settings.algorithms.includes(header.alg)) return { ok: false, reason: `tokens signed with ${header.alg} are not accepted` };
  const jose = settings.jose ?? (await loadJose());
  let key;
  try {
    key = await keys.key(jose, header.kid, header.alg);
  } catch (error) {
    if (error instanceof AuthServerError) return { ok: false, unavailable: true, reason: `the keys of ${keys.issuer} could not be read: ${error.message}` };
    throw error;
  }
  // The kid is not echoed: it is unverified, and the reason becomes a header value.
  if (key === undefined) return { ok: false, reason: `no key of ${keys.issuer} matches the token's ${header.kid === undefined ? "algorithm" : "kid"}` };
  try {
    const { payload } = await jose.jwtVerify(token, key, {
      issuer: keys.issuer,
      audience: settings.audience,
      algorithms: [header.alg],
      requiredClaims: ["exp"],
      clockTolerance: settings.clockToleranceSeconds,
    });
    return { ok: true, issuer: keys.issuer, claims: payload };
  } catch (error) {
    return { ok: false, reason: joseReason(error as JoseFailure) };
  }
}

interface JwsHeader {
  readonly alg: string;
  readonly kid: string | undefined;
}

/** The header, and the trusted issuer the (not yet verified) payload names: just enough to pick a key. */
function peek(token: string, issuers: ReadonlyMap<string, IssuerKeys>): { header: JwsHeader; keys: IssuerKeys } | { reason: string } {
  const [headerPart = "", payloadPart = ""] = token.split(".", 2);
  const header = decodePart(headerPart);
  const payload = decodePart(payloadPart);
  if (header === undefined || payload === undefined) return { reason: "the token is not a readable JWT" };
  const { alg, kid } = header;
  if (typeof alg !== "string" || (kid !== undefined && typeof kid !== "string")) return { reason: "the token's header has no usable alg or kid" };
  const issuer = payload["iss"];
  const keys = typeof issuer === "string" ? issuers.get(issuer) : undefined;
  if (keys === undefined) return { reason: "the token was not issued by a trusted authorization server" };
  return { header: { alg, kid }, keys };
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    // atob rather than Buffer: this module runs where node: modules do not (see fetch-json.ts).
    const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
    const value: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0))));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** jose's failure as one line a client may see: nothing of the token itself. */
function joseReason(error: JoseFailure): string {
  switch (error.code) {
    case "ERR_JWT_EXPIRED":
      return "the token has expired";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the token's signature does not verify";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (error.claim === "aud") return "the token was not issued for this resource (audience)";
      if (error.claim === "nbf") return "the token is not valid yet";
      if (error.claim === "iss") return "the token was not issued by a trusted authorization server";
      return `the token's ${String(error.claim)} claim is missing or wrong`;
    default:
      return "the token is not a valid JWT";
  }
}
