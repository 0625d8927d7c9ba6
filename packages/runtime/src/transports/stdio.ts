/**
 * stdio: newline-delimited JSON on a process's stdin and stdout. The server side reads
 * this process's stdin; at stdin EOF every stream ends, requests still running are answered
 * (within `drainTimeoutMs`), then the transport closes. While it serves, console output that
 * would reach stdout goes to stderr (stdio-console.ts).
 * The client side spawns the server as a child process and talks over its pipes.
 */
import type { ChildProcess } from "node:child_process";
import type { JsonRpcMessage } from "../jsonrpc.js";
import {
  registerTransport,
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { NdjsonTransport } from "./ndjson.js";
import { routeConsoleToStderr } from "./stdio-console.js";

export interface StdioServerOptions {
  context?: MessageContext;
  /** A longer stdin line is dropped with an "error" event; default 16 Mi characters. */
  maxLineLength?: number;
  /** After stdin EOF, how long requests still running may take to be answered; default 5000 ms. */
  drainTimeoutMs?: number;
  /** stdout bytes waiting past which stdin is no longer read until stdout drains; default 1 MiB. */
  highWaterBytes?: number;
  /** stdout bytes waiting past which the client, not reading, is cut off (reported, transport closed); default 16 MiB. */
  maxBufferedBytes?: number;
}

/** After stdin EOF, how long requests still running may take before they are aborted. */
export const DEFAULT_STDIO_DRAIN_TIMEOUT_MS = 5000;

export class StdioServerTransport extends NdjsonTransport {
  /** Undoes the console's routing to stderr; set while serving. */
  #restoreConsole: (() => void) | undefined;

  constructor(options: StdioServerOptions = {}) {
    // process.stdout stays open after close(): other code may still log through it.
    const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_STDIO_DRAIN_TIMEOUT_MS;
    super({ readable: process.stdin, writable: process.stdout }, { ...options, drainTimeoutMs, endOutputOnClose: false });
  }

  /** Serving stdout: from now until the transport closes, console output goes to stderr, not into the protocol stream. */
  override async connect(): Promise<void> {
    await super.connect();
    if (this.connected()) this.#restoreConsole ??= routeConsoleToStderr();
  }

  protected override released(): void {
    this.#restoreConsole?.();
  }

  override async close(): Promise<void> {
    await super.close();
    process.stdin.pause(); // lets the process exit once nothing else is pending
  }
}

export interface StdioClientOptions {
  command: string;
  args?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the child's stderr goes; default "inherit". */
  stderr?: "inherit" | "pipe" | "ignore";
  /** How long close() waits for the child to exit before SIGTERM, then SIGKILL; default 2000 ms. */
  exitTimeoutMs?: number;
  /** A longer line from the child is dropped with an "error" event; default 16 Mi characters. */
  maxLineLength?: number;
}

const PUSH: readonly TransportCapability[] = Object.freeze(["push"]);

/** The client side of stdio: spawns the server and exchanges NDJSON with it. */
export class StdioClientTransport implements Transport {
  readonly #options: StdioClientOptions;
  #child: ChildProcess | undefined;
  #wire: NdjsonTransport | undefined;
  #listener: TransportListener | undefined;
  #exited: Promise<void> = Promise.resolve();

  constructor(options: StdioClientOptions) {
    this.#options = options;
  }

  /** The spawned process, once connected (its stderr when `stderr: "pipe"`). */
  get child(): ChildProcess | undefined {
    return this.#child;
  }

  async connect(): Promise<void> {
    if (this.#child !== undefined) return;
    // Loaded here: a module importing the runtime (a fetch server on Workers) may run where child processes do not exist.
    const { spawn } = await import("node:child_process");
    if (this.#child !== undefined) return;
    const { command, args = [], cwd, env, stderr = "inherit" } = this.#options;
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", stderr] });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    // The child's stdout EOF means no answer can come any more: the wire closes at once.
    this.#wire = new NdjsonTransport({ readable: child.stdout!, writable: child.stdin! }, { maxLineLength: this.#options.maxLineLength });
    if (this.#listener !== undefined) this.#wire.subscribe(this.#listener);
    await this.#wire.connect();
  }

  sendMessage(message: JsonRpcMessage): Promise<void> {
    if (this.#wire === undefined) return Promise.reject(new TransportClosedError("not connected: call connect() first"));
    return this.#wire.sendMessage(message);
  }

  receiveMessage(): Promise<ReceivedMessage> {
    if (this.#wire === undefined) return Promise.reject(new TransportClosedError("not connected: call connect() first"));
    return this.#wire.receiveMessage();
  }

  subscribe(listener: TransportListener): void {
    this.#listener = listener;
    this.#wire?.subscribe(listener);
  }

  capabilities(): readonly TransportCapability[] {
    return PUSH;
  }

  connected(): boolean {
    return this.#wire?.connected() ?? false;
  }

  /** Ends the child's stdin (its EOF), then waits for it to exit, escalating if it lingers. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    await this.#wire?.close();
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timeoutMs = this.#options.exitTimeoutMs ?? 2000;
    for (const signal of [undefined, "SIGTERM", "SIGKILL"] as const) {
      if (signal !== undefined) child.kill(signal);
      const exited = await Promise.race([this.#exited.then(() => true), delay(timeoutMs).then(() => false)]);
      if (exited) return;
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

registerTransport("stdio", StdioServerTransport);
registerTransport("stdio-client", StdioClientTransport);
