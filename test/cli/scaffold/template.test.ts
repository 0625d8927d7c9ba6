/**
 * The scaffold renderer (cli/scaffold/template.ts) against handlebars itself: every file
 * the generators render, for projects, handlers, tools, resources, prompts, middleware and transports
 * of several shapes, comes out byte for byte as handlebars renders it; the stored trees
 * `npm run build` writes are used only while their template is unchanged.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Handlebars from "handlebars";
import { PACKAGE_KINDS } from "../../../cli/scaffold/notification-kinds.js";
import { parseNotifications, renderHandler } from "../../../cli/scaffold/handler.js";
import { validateName } from "../../../cli/scaffold/names.js";
import { renderMiddleware } from "../../../cli/scaffold/middleware.js";
import { renderPrimitive } from "../../../cli/scaffold/primitive.js";
import { parsePromptArguments, promptView, resourceView, toolView } from "../../../cli/scaffold/primitive-views.js";
import { planProject } from "../../../cli/scaffold/project.js";
import { renderFile, renderTemplateTree, swapFileRenderer } from "../../../cli/scaffold/render.js";
import { transportWiring } from "../../../cli/scaffold/transport.js";
import { renderTemplate, fromAst } from "../../../cli/scaffold/template.js";
import { repoRoot } from "../../support/schemas.js";

/** handlebars as the scaffolder used it: strict, no escaping, the three helpers. */
function handlebarsRender(text: string, view: object): string {
  const instance = Handlebars.create();
  instance.registerHelper("eq", (left: unknown, right: unknown) => left === right);
  instance.registerHelper("json", (value: unknown) => JSON.stringify(value));
  instance.registerHelper("minus", (left: number, right: number) => left - right);
  return instance.compile(text, { strict: true, noEscape: true })(view);
}

/** Runs `work` with a renderer that checks each file against handlebars; returns the templates it compared. */
async function comparedWhile(work: () => Promise<unknown>): Promise<string[]> {
  const compared: string[] = [];
  const previous = swapFileRenderer(async (path, text, view) => {
    const rendered = await renderFile(path, text, view);
    assert.equal(rendered, handlebarsRender(text, view), `${path} with ${JSON.stringify(view).slice(0, 300)}`);
    compared.push(path.slice(repoRoot.length));
    return rendered;
  });
  try {
    await work();
  } finally {
    swapFileRenderer(previous);
  }
  return compared;
}

test("every template renders byte for byte as handlebars renders it, for every generator and shape", { timeout: 120_000 }, async () => {
  const handler = validateName("WatchOrders", "handler");
  const compared = await comparedWhile(async () => {
    for (const transport of ["stdio", "http", "both"] as const) {
      for (const pm of ["npm", "pnpm", "yarn"] as const) {
        await planProject({ dir: join(repoRoot, ".tmp", `app-${transport}`), transport, handler, pm, eventSource: pm === "yarn" ? "redis" : "memory", docker: pm === "npm" });
      }
    }
    for (const words of [["tools"], ["tools", "prompts"], ["resources", "prompts", "tools"]]) await renderHandler(handler, parseNotifications(words, PACKAGE_KINDS));
    const names = validateName("LookupOrder", "tool");
    for (const library of ["json-schema", "zod"] as const) await renderPrimitive("tool", names, toolView(names, library).view);
    await renderPrimitive("resource", names, resourceView(names, {}).view);
    await renderPrimitive("resource", names, resourceView(names, { template: "app://orders/{id}/{line}" }).view);
    for (const args of [[], ["topic"], ["topic,style?"]]) await renderPrimitive("prompt", names, promptView(names, parsePromptArguments(args)).view);
    for (const name of ["Audit", "QuotaMiddleware"]) await renderMiddleware(validateName(name, "middleware"));
    for (const push of [true, false]) {
      const transport = validateName("Socket", "transport");
      const view = { className: "SocketTransport", names: transport, push, wiring: transportWiring("Socket") };
      await renderTemplateTree(join(repoRoot, "templates", "transport"), view, { fileName: transport.kebab });
    }
  });
  const templates = new Set(compared);
  for (const folder of ["project", "handler", "tool", "resource", "prompt", "middleware", "transport", "docker"]) {
    assert.ok([...templates].some((path) => path.startsWith(`templates/${folder}/`)), `templates/${folder} was compared`);
  }
  assert.ok(compared.length > 40, `${compared.length} renders compared`);
});

test("the renderer refuses a helper or block it does not know, and a missing value it would print, naming it", () => {
  const parsed = (text: string) => fromAst(Handlebars.parse(text) as Parameters<typeof fromAst>[0]);
  assert.throws(() => parsed("{{#with a}}x{{/with}}"), /unsupported block helper with/);
  assert.throws(() => parsed("{{shout a}}"), /unknown helper shout/);
  assert.throws(() => renderTemplate(parsed("{{names.pascal}}"), { names: {} }), /"pascal" not defined/);
  assert.equal(renderTemplate(parsed("{{#if missing}}x{{else}}y{{/if}}"), {}), "y");
});
