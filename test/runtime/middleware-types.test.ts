/**
 * What `server.use` accepts, checked by the compiler: a per-method middleware's params and
 * result are its method's, from the generated map. `npm run typecheck` fails when a line
 * marked @ts-expect-error compiles, so each mark is a test that a wrong middleware is refused.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createServer } from "../../packages/runtime/src/index.js";

test("middleware of subscriptions/listen is refused: it opens a stream, not a request", () => {
  const server = createServer({ name: "listen", version: "1.0.0" });
  // @ts-expect-error subscriptions/listen is no middleware method
  assert.throws(() => server.use("subscriptions/listen", async (_ctx: unknown, next: () => Promise<object>) => next()), /opens a stream/);
});

/** Type checks only: compiled by `npm run typecheck`, never run. Each @ts-expect-error fails tsc once the line it marks compiles. */
export function middlewareTypeChecks(): void {
  const server = createServer({ name: "typed", version: "1.0.0" });
  server.use("tools/call", async (ctx, next) => {
    const name: string = ctx.params.name;
    // @ts-expect-error tools/call's `name` is a string
    const wrong: number = ctx.params.name;
    void wrong;
    return next({ ...ctx.params, name: name.toUpperCase() });
  });
  // @ts-expect-error a tools/call result's content is a list of content blocks
  server.use("tools/call", async () => ({ content: "rewritten" }));
  // @ts-expect-error a rewritten result must still fit: a text block's text is a string
  server.use("tools/call", async (_ctx, next) => {
    const result = await next();
    return { ...result, content: [{ type: "text", text: 42 }] };
  });
  // A rewritten result that fits compiles.
  server.use("tools/call", async (_ctx, next) => {
    const result = await next();
    return { ...result, content: [{ type: "text", text: "rewritten" }] };
  });
  // @ts-expect-error tools/list answers tools, not content
  server.use("tools/list", async () => ({ content: [] }));
  // @ts-expect-error next takes the method's own params: tools/call needs a name
  server.use("tools/call", async (_ctx, next) => next({ arguments: {} }));
  // An all-methods middleware passes on what next gives, for whichever method.
  server.use(async (ctx, next) => {
    void ctx.method;
    return next();
  });
  // @ts-expect-error an all-methods middleware cannot answer one method's result without naming the method
  server.use(async () => ({ content: [] }));
}
