/**
 * A client of any modern revision written as plain JSON-RPC, for revisions no SDK knows yet:
 * newline-delimited JSON over a server process's stdio, and single POSTs over HTTP. Bounded:
 * every wait gives up after `timeoutMs`, and at most `maxMessages` are kept.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { within } from "../../../cli/scaffold/helpers.js";

export type Message = Record<string, any>;

/** The `_meta` every modern request carries, naming `revision`. */
export function requestMeta(revision: string): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": revision,
    "io.modelcontextprotocol/clientInfo": { name: "raw-client", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
}

export interface RawStdioClient {
  readonly received: readonly Message[];
  /** Sends one request with the revision's `_meta`. */
  send(id: string, method: string, params?: Record<string, unknown>): void;
  /** The first message (already received or to come) that `match` accepts; undefined after the timeout. */
  until(match: (message: Message) => boolean): Promise<Message | undefined>;
  close(): Promise<void>;
}

export function rawStdioClient(command: string, args: string[], cwd: string, revision: string, timeoutMs = 15_000, maxMessages = 1_000): RawStdioClient {
  const server = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const received: Message[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: server.stdout }).on("line", (line) => {
    if (received.length < maxMessages) received.push(JSON.parse(line) as Message);
    waiters.splice(0).forEach((wake) => wake());
  });
  exited.then(() => waiters.splice(0).forEach((wake) => wake()));
  return {
    received,
    send(id, method, params = {}) {
      server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: requestMeta(revision) } })}\n`);
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
}

/** One modern request over Streamable HTTP, with the headers the revision's binding asks for; the response message. */
export async function rawHttpRequest(url: URL, revision: string, method: string, params: Record<string, unknown> = {}): Promise<Message> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-method": method,
      "mcp-protocol-version": revision,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: requestMeta(revision) } }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = (await response.text()).slice(0, 1_000_000);
  if (!response.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text) as Message;
  const data = text.split("\n").find((line) => line.startsWith("data:") && line.includes('"id"'));
  return JSON.parse(data?.slice("data:".length) ?? "{}") as Message;
}
