/** Serves a fetch-shaped handler (the official SDK's `handler.fetch`) from node:http, for the benches. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** The adapter every Node user of the SDK's fetch face needs: Node request in, Web Response out. */
export async function serveFetch(fetchHandler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const abort = new AbortController();
  res.once("close", () => abort.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    signal: abort.signal,
  });
  const response = await fetchHandler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  } catch {
    res.destroy();
  }
}
