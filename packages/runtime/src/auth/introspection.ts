/**
 * Opaque access tokens through RFC 7662 introspection: the token is posted to the
 * authorization server's introspection endpoint (with this resource server's own client
 * credentials, HTTP Basic) and the answer must say it is `active`, was issued by the issuer
 * asked, for this resource (`aud`, RFC 8707), and is within `exp`/`nbf`. The token goes to
 * that endpoint only, never anywhere else. introspector.ts keeps answers and bounds how many
 * calls run at once (`IntrospectionLimits`).
 */
import { AuthServerError, fetchJson, type FetchBounds } from "./fetch-json.js";
import type { IssuerKeys } from "./issuer-keys.js";
import type { TokenCheck } from "./jwt.js";

/** How introspection calls are kept and bounded (introspector.ts holds the defaults, `DEFAULT_INTROSPECTION_LIMITS`). */
export interface IntrospectionLimits {
  /** How long an answer is reused; an active token's never past its `exp`. 0: never kept. */
  readonly cacheMs: number;
  /** Answers kept, and bytes of token text kept with them (the least recently used go first). */
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** Introspection calls running at once. */
  readonly maxConcurrent: number;
  /** Calls waiting for a turn; one more is refused (503). */
  readonly maxWaiting: number;
  /** How long a call waits for its turn before it is refused (503). */
  readonly waitMs: number;
}

export interface IntrospectionOptions extends Partial<IntrospectionLimits> {
  /** The endpoint; default: the issuer metadata's `introspection_endpoint`. */
  readonly endpoint?: string;
  /** This resource server's client at the authorization server. */
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface IntrospectionSettings {
  readonly audience: string;
  readonly clockToleranceSeconds: number;
  readonly fetch: FetchBounds;
  readonly now?: () => number;
}

/** Asks the first trusted issuer (the one whose endpoint is configured or advertised) about `token`. */
export async function introspect(token: string, keys: IssuerKeys, options: IntrospectionOptions, settings: IntrospectionSettings): Promise<TokenCheck> {
  let answer: Record<string, unknown>;
  try {
    const endpoint = options.endpoint ?? (await keys.metadata())["introspection_endpoint"];
    if (typeof endpoint !== "string") return { ok: false, unavailable: true, reason: `${keys.issuer} advertises no introspection_endpoint` };
    answer = await fetchJson(endpoint, settings.fetch, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(options.clientId, options.clientSecret) },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    });
  } catch (error) {
    if (error instanceof AuthServerError) return { ok: false, unavailable: true, reason: `the token could not be introspected: ${error.message}` };
    throw error;
  }
  return judge(answer, keys.issuer, settings);
}

function judge(answer: Record<string, unknown>, issuer: string, settings: IntrospectionSettings): TokenCheck {
  if (answer["active"] !== true) return { ok: false, reason: "the token is not active (revoked, expired or unknown)" };
  if (answer["iss"] !== undefined && answer["iss"] !== issuer) return { ok: false, reason: "the token was not issued by a trusted authorization server" };
  const audiences = Array.isArray(answer["aud"]) ? answer["aud"] : [answer["aud"]];
  if (!audiences.includes(settings.audience)) return { ok: false, reason: "the token was not issued for this resource (audience)" };
  const now = (settings.now ?? Date.now)() / 1000;
  const exp = answer["exp"];
  if (typeof exp === "number" && exp + settings.clockToleranceSeconds <= now) return { ok: false, reason: "the token has expired" };
  const nbf = answer["nbf"];
  if (typeof nbf === "number" && nbf - settings.clockToleranceSeconds > now) return { ok: false, reason: "the token is not valid yet" };
  return { ok: true, issuer, claims: answer, introspected: true };
}

/** RFC 6749 §2.3.1: each part form-encoded, then base64. */
function basic(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}
