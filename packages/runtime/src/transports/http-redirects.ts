/**
 * The redirects the HTTP client follows. fetch follows any redirect and sends the request's
 * headers along (undici drops only `authorization` and cookies on a change of origin), so a
 * 307 from the server, or from whoever answers in its name, would carry a client's
 * `x-api-key` or any header its user gave to another origin. The client therefore asks
 * fetch not to follow (`redirect: "manual"`) and follows by itself only redirects within
 * the URL's origin, at most `maxRedirects` in a row; one to another origin fails naming it.
 */

/** Redirects in a row followed within the origin before the request fails. */
export const DEFAULT_MAX_REDIRECTS = 5;

/** What the client's fetch is called with: a URL and an init that redirects do not change but for its method and body. */
export type Fetcher = (url: URL, init: RequestInit) => Promise<Response>;

/** A redirect the client did not follow: to another origin, too many in a row, or one fetch hid. */
export class HttpRedirectError extends Error {
  constructor(
    /** Where the redirect pointed, when the response said. */
    readonly location: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "HttpRedirectError";
  }
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * `fetcher` with redirects held to the rule above: the response of the last request, or an
 * HttpRedirectError (the redirect's own response is cancelled). A redirect is followed only
 * where fetch would keep the method and body (307, 308; 301 and 302 of anything but a POST):
 * one that turns the request into a GET would drop the message, so it fails instead.
 */
export async function fetchWithinOrigin(fetcher: typeof fetch, url: URL, init: RequestInit, maxRedirects = DEFAULT_MAX_REDIRECTS): Promise<Response> {
  let target = url;
  for (let followed = 0; ; followed++) {
    const response = await fetcher(target, { ...init, redirect: "manual" });
    // A browser's fetch hides a redirect it was told not to follow: nothing can be checked.
    if (response.type === "opaqueredirect")
      throw new HttpRedirectError(undefined, `${target.href} answered with a redirect this fetch does not show, so it is not followed`);
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => {});
    const next = new URL(location, target);
    if (next.origin !== url.origin) {
      throw new HttpRedirectError(
        next.href,
        `${target.href} redirects (HTTP ${response.status}) to another origin, ${next.origin}: not followed, so this client's headers stay with ${url.origin}; connect to that URL directly if you trust it`,
      );
    }
    if (followed >= maxRedirects) {
      throw new HttpRedirectError(next.href, `${url.href} redirected more than ${maxRedirects} times in a row; raise maxRedirects to follow more`);
    }
    const method = (init.method ?? "GET").toUpperCase();
    if (response.status === 303 ? method !== "GET" : response.status < 307 && method === "POST") {
      throw new HttpRedirectError(
        next.href,
        `${target.href} redirects a ${method} with HTTP ${response.status}, which makes it a GET without its message: not followed`,
      );
    }
    target = next;
  }
}
