/**
 * A scaffolded project's `src/fetch.ts`, built to `dist/src/fetch.js`, served as it is by
 * real Bun (`bun dist/src/fetch.js`) and real Deno (`deno serve dist/src/fetch.js`), and as
 * Cloudflare Workers runs it: bundled by esbuild as wrangler bundles `main`, served by
 * workerd (the Workers runtime) with `nodejs_compat`, all three installed from npm. The
 * official 2.x client discovers, lists tools, has its listen stream acknowledged and
 * receives the list change after toggle_greet; today's 1.x client does the same over HTTP+SSE.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { explain, runCreate, runIn, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { openDemoSession } from "./mcp-client.js";
import { FETCH_RUNTIMES, serveFetchEntry } from "./fetch-runtimes.js";
import { sdkRoundTrip } from "./sdk-releases.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];

before(
  () => {
    temp = tempFolder("mcp-gen-fetch");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "http"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
    const build = runIn(app, "npm", ["run", "build"]);
    assert.equal(build.status, 0, explain(build));
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

const E2E = { timeout: 120_000 };

test("the scaffold has src/fetch.ts, built to dist/src/fetch.js", () => {
  assert.ok(existsSync(join(app, "src", "fetch.ts")));
  assert.ok(existsSync(join(app, "dist", "src", "fetch.js")));
});

for (const name of Object.keys(FETCH_RUNTIMES)) {
  test(`served by ${name} as it is: server/discover, tools/list, a listen acknowledged, then the list change after toggle_greet`, E2E, async () => {
    const server = await serveFetchEntry(name, app);
    stops.push(() => server.stop());
    const session = await openDemoSession(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      assert.deepEqual(session.subscription.honoredFilter, { toolsListChanged: true });
      assert.deepEqual((await session.client.listTools()).tools.map((tool) => tool.name).sort(), ["ask_name", "toggle_greet"]);
      assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
      assert.ok((await session.client.listTools()).tools.some((tool) => tool.name === "greet"));
    } finally {
      await within(session.client.close(), 5_000, undefined);
      await server.stop();
    }
  });

  test(
    `served by ${name}: today's 1.x SDK client over HTTP+SSE (2024-11-05's transport) lists tools, calls toggle_greet and hears each list change`,
    E2E,
    async () => {
      const server = await serveFetchEntry(name, app);
      stops.push(() => server.stop());
      try {
        const trip = await sdkRoundTrip("1.x", { kind: "sse", url: new URL(server.url) });
        await trip.close();
      } finally {
        await server.stop();
      }
    },
  );
}
