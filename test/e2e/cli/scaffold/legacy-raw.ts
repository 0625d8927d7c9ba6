/**
 * A client of the `initialize` revisions written as plain JSON-RPC (no per-request `_meta`):
 * newline-delimited JSON over a server process's stdio, and single POSTs over Streamable HTTP
 * with a session id. Bounded: every wait gives up after `timeoutMs`, at most `maxMessages`
 * are kept, and a response body is read up to 1 MB.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { within } from "../../../cli/scaffold/helpers.js";

export type Message = Record<string, any>;

/** The params of an `initialize` at `protocolVersion`. */
export function initializeParams(protocolVersion: string, capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return { protocolVersion, capabilities, clientInfo: { name: "legacy-raw", version: "0.0.0" } };
}

export interface LegacyStdioClient {
  readonly received: readonly Message[];
  /** Writes one message as it is. */
  write(message: Message): void;
  /** Sends a request and resolves with its response; undefined after the timeout. */
  request(id: string, method: string, params?: Record<string, unknown>): Promise<Message | undefined>;
  /** The first message (already received or to come) that `match` accepts; undefined after the timeout. */
  until(match: (message: Message) => boolean): Promise<Message | undefined>;
  close(): Promise<void>;
}

export function legacyStdioClient(command: string, args: string[], cwd: string, timeoutMs = 15_000, maxMessages = 1_000): LegacyStdioClient {
  const server = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  server.stdin.on("error", () => {}); // a server that exited early shows as missing answers
  const received: Message[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: server.stdout }).on("line", (line) => {
    if (received.length < maxMessages) received.push(JSON.parse(line) as Message);
    waiters.splice(0).forEach((wake) => wake());
  });
  exited.then(() => waiters.splice(0).forEach((wake) => wake()));
  const client: LegacyStdioClient = {
    received,
    write(message) {
      server.stdin.write(`${JSON.stringify(message)}\n`);
    },
    request(id, method, params = {}) {
      client.write({ jsonrpc: "2.0", id, method, params });
      return client.until((message) => message.id === id && !("method" in message));
    },
    async until(match) {
      const arrived = (async () => {
        for (let round = 0; round < maxMessages && !received.some(match) && server.exitCode === null; round++) {
          await new Promise<void>((wake) => waiters.push(wake));
        }
      })();
      await within(arrived, timeoutMs, undefined);
      return received.find(match);
    },
    async close() {
      server.stdin.end();
      server.kill("SIGTERM");
      await within(exited, 5_000, undefined);
    },
  };
  return client;
}

export interface HttpAnswer {
  status: number;
  sessionId: string | null;
  /** The JSON-RPC messages of the body (one JSON body, or every SSE event's data). */
  messages: Message[];
  /** The response to the request, when one came. */
  response: Message | undefined;
  text: string;
}

/** POSTs one message; `headers` are added to content-type and accept. */
export async function postMessage(url: URL, message: Message, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(15_000),
  });
  const text = (await response.text()).slice(0, 1_000_000);
  let messages: Message[] = [];
  if (response.headers.get("content-type")?.includes("text/event-stream")) {
    messages = text
      .split(/\r?\n\r?\n/)
      .map((event) =>
        event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n"),
      )
      .filter((data) => data !== "")
      .map((data) => JSON.parse(data) as Message);
  } else if (text.trim() !== "") {
    try {
      messages = [JSON.parse(text) as Message];
    } catch {
      messages = [];
    }
  }
  const id = message.id;
  return {
    status: response.status,
    sessionId: response.headers.get("mcp-session-id"),
    messages,
    response: id === undefined ? undefined : messages.find((m) => m.id === id && !("method" in m)),
    text,
  };
}
