/**
 * This server's own tools, resources and prompts, asked over HTTP in each era a client may
 * speak, their answers checked against what that revision's schema requires
 * (`answerProblems`: a tool result without `content`, a resource read without `uri`). The
 * official suite calls only its own test tools, so it cannot see these.
 *
 * Asked: every listed resource (a read changes nothing), every prompt whose arguments are all
 * optional, and each tool test/conformance-calls.json lists, once per arguments given there.
 * A tool not listed is not called (whether a call is safe to make in a test is its author's
 * to say) and is named in the test's output instead.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, type McpClient } from "@mcp-gen/runtime/client";
import { answerProblems, shapedRevisions } from "@mcp-gen/runtime/testing";
import { DIAGNOSTIC_TOOLS } from "./diagnostics.js";
import { projectRoot } from "./suite.js";

export const CALLS_FILE = "test/conformance-calls.json";

/** One answer checked: `own-<method> <what was asked>`, and what it lacks (empty: nothing). */
export interface OwnCheck {
  id: string;
  problems: string[];
}

export interface OwnRun {
  /** The revision the client and server agreed on. */
  revision: string;
  checks: OwnCheck[];
  /** Listed tools that test/conformance-calls.json does not name, so were not called. */
  notCalled: string[];
}

/** The eras a client may open: per-request `_meta` (2026-07-28), or a session opened with `initialize`. */
export type Era = "2026-07-28" | "initialize";

/** A listing is read a page at a time, at most this many pages. */
const MAX_PAGES = 20;
const TIMEOUT_MS = 20_000;

/** A tool that asks for input is told no: the answer after it is checked like any other. */
const DECLINE = { "elicitation/create": () => ({ action: "decline" as const }) };

export async function askOwnPrimitives(url: string, era: Era): Promise<OwnRun> {
  const client = await connectClient(
    { url },
    { era, inputHandlers: DECLINE, timeoutMs: TIMEOUT_MS },
  );
  try {
    const revision = client.server!.protocolVersion;
    if (!shapedRevisions().includes(revision))
      throw new Error(`the runtime has no shapes for ${revision}`);
    const ask = asker(client, revision);
    const checks: OwnCheck[] = [];
    const capabilities = client.server!.capabilities;
    if (capabilities.resources !== undefined) {
      for (const resource of await listAll(client, "resources/list", "resources")) {
        checks.push(await ask("resources/read", resource.uri as string, { uri: resource.uri }));
      }
    }
    if (capabilities.prompts !== undefined) {
      for (const prompt of await listAll(client, "prompts/list", "prompts")) {
        const args = (prompt.arguments ?? []) as Array<{ required?: boolean }>;
        if (args.some((argument) => argument.required)) continue;
        checks.push(await ask("prompts/get", prompt.name as string, { name: prompt.name }));
      }
    }
    const calls = toolCalls();
    const notCalled: string[] = [];
    for (const tool of await listAll(client, "tools/list", "tools")) {
      const name = tool.name as string;
      const argumentsList = calls.get(name);
      if (DIAGNOSTIC_TOOLS.includes(name)) continue; // the suite's, added for its run
      if (argumentsList === undefined) {
        notCalled.push(name);
        continue;
      }
      for (const [index, args] of argumentsList.entries()) {
        const what = argumentsList.length === 1 ? name : `${name} (call ${index + 1})`;
        checks.push(await ask("tools/call", what, { name, arguments: args }));
      }
    }
    return { revision, checks, notCalled };
  } finally {
    await client.close();
  }
}

/** test/conformance-calls.json's `calls`: per tool name, the arguments of each call to make. */
function toolCalls(): Map<string, Array<Record<string, unknown>>> {
  const file = JSON.parse(readFileSync(join(projectRoot, CALLS_FILE), "utf8")) as {
    calls?: unknown;
  };
  const calls = new Map<string, Array<Record<string, unknown>>>();
  for (const [name, list] of Object.entries((file.calls ?? {}) as Record<string, unknown>)) {
    const valid =
      Array.isArray(list) &&
      list.every((args) => typeof args === "object" && args !== null && !Array.isArray(args));
    if (!valid)
      throw new Error(
        `${CALLS_FILE}: "calls.${name}" must be a list of argument objects, such as [{}]`,
      );
    calls.set(name, list as Array<Record<string, unknown>>);
  }
  return calls;
}

/** Asks one request and checks its answer; an error answer is a problem too (the request was the server's own). */
function asker(client: McpClient, revision: string) {
  return async (
    method: string,
    what: string,
    params: Record<string, unknown>,
  ): Promise<OwnCheck> => {
    const id = `own-${method.replace("/", "-")} ${what}`;
    try {
      const result = await client.request(method as "tools/call", params as never);
      return { id, problems: answerProblems(revision, method, result) };
    } catch (error) {
      return {
        id,
        problems: [`answered an error: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
  };
}

/** Every item of a listing, page after page. */
async function listAll(
  client: McpClient,
  method: string,
  key: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = (await client.request(
      method as "tools/list",
      params as never,
    )) as unknown as Record<string, unknown>;
    items.push(...((result[key] ?? []) as Array<Record<string, unknown>>));
    cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
    if (cursor === undefined) return items;
  }
  throw new Error(`${method} had more than ${MAX_PAGES} pages`);
}
