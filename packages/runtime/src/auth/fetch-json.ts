/**
 * One bounded JSON exchange with an authorization server (its metadata, its keys, an
 * introspection): web-standard `fetch`, so it runs wherever the runtime does. Bounded in
 * bytes (read as it arrives, cut at the cap) and in time (the whole exchange); redirects are
 * not followed, since metadata and keys must come from the URL the issuer names.
 */

export interface FetchBounds {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** Why an exchange failed, in one line naming the URL; never quotes what was read. */
export class AuthServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthServerError";
  }
}

/** The JSON object at `url` (`init` for a POST); an AuthServerError on any failure. */
export async function fetchJson(url: string, bounds: FetchBounds, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal, redirect: "manual", headers: { accept: "application/json", ...init.headers } });
  } catch (error) {
    throw new AuthServerError(signal.aborted ? `${url} did not answer within ${bounds.timeoutMs} ms` : `${url} could not be reached (${describe(error)})`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new AuthServerError(`${url} answered HTTP ${response.status}, expected 200`);
  }
  const text = await readBounded(response, url, bounds, signal);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AuthServerError(`${url} did not answer JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new AuthServerError(`${url} did not answer a JSON object`);
  return parsed as Record<string, unknown>;
}

async function readBounded(response: Response, url: string, bounds: FetchBounds, signal: AbortSignal): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > bounds.maxBytes) throw new AuthServerError(`${url} answered more than ${bounds.maxBytes} bytes`);
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof AuthServerError) throw error;
    throw new AuthServerError(signal.aborted ? `${url} did not answer within ${bounds.timeoutMs} ms` : `${url} failed while answering (${describe(error)})`);
  }
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
