import { mcpRequestHeaders } from "../../packages/runtime/src/transports/http-request.js";
import type { JsonRpcMessage } from "../../packages/runtime/src/index.js";

/** What a server answered one POSTed JSON-RPC message. */
export interface PostedAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The body as sent. */
  readonly text: string;
  /** The JSON-RPC message it carried: the JSON body, or the last SSE event's data (null when there is none). */
  readonly message: any;
}

/** POSTs `message` to `url` with the headers its method calls for, waiting at most `timeoutMs` for the whole answer. */
export async function postJsonRpc(url: string, message: Record<string, unknown>, timeoutMs: number): Promise<PostedAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: mcpRequestHeaders(message as unknown as JsonRpcMessage),
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? (text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .at(-1)
        ?.slice(5) ?? "null")
    : text;
  return { status: response.status, headers: response.headers, text, message: JSON.parse(json) };
}
