/**
 * A small MCP Apps host for the view tests: headless Chromium (playwright-core driving the
 * system's browser; nothing is downloaded) shows a host page that runs the extension's
 * host-side bridge (AppBridge, bundled for the browser with esbuild) and renders the view in a
 * sandboxed iframe. The bridge hands the view a tool result and forwards the view's tool calls
 * to `callTool`, which the test answers from the server.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type BrowserContext, type Frame, type Page } from "playwright-core";

/** The browser: `CHROMIUM`, else Debian's. */
export const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. */
export const browserMissing = existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (install it, or set CHROMIUM)`;

/** Where screenshots are kept: dist/test/artifacts/, beside the compiled tests (dist/ is git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("./artifacts/", import.meta.url));

const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.startHost = async (html, toolResult) => {
  const frame = document.createElement("iframe");
  frame.sandbox = "allow-scripts";
  frame.style.cssText = "width: 100%; height: 360px; border: 1px solid #999";
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { serverTools: {} });
  bridge.oncalltool = (params) => window.callTool(params);
  bridge.oninitialized = () => void bridge.sendToolResult(toolResult);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
};
`;

/** The host page's script, bundled once. */
let hostScript: Promise<string> | undefined;
function bundledHost(): Promise<string> {
  hostScript ??= build({
    stdin: { contents: HOST_ENTRY, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
  }).then((result) => result.outputFiles[0]!.text);
  return hostScript;
}

export interface Host {
  page: Page;
  /** The view's frame, once the host has put it in. */
  view: Frame;
  close(): Promise<void>;
}

/** Opens the host page with the view `html`, `toolResult` handed over once the view is initialized. */
export async function openHost(html: string, toolResult: object, callTool: (params: unknown) => Promise<unknown>): Promise<Host> {
  const profile = mkdtempSync(join(tmpdir(), "app-host-"));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.exposeFunction("callTool", callTool);
    await page.setContent(
      `<!doctype html><html><body><h2>host</h2><script>${(await bundledHost()).replaceAll("</script", "<\\/script")}</script></body></html>`,
    );
    await page.evaluate(`startHost(${JSON.stringify(html)}, ${JSON.stringify(toolResult)})`);
    const frame = await (await page.waitForSelector("iframe")).contentFrame();
    if (frame === null) throw new Error("the host page has no view frame");
    const opened = context;
    return {
      page,
      view: frame,
      close: async () => {
        await opened.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Waits (bounded) until the element at `selector` in `frame` shows exactly `text`. */
export async function waitForText(frame: Frame, selector: string, text: string, timeout = 15_000): Promise<void> {
  // A string, evaluated in the browser: this project compiles against Node's types, not the DOM's.
  await frame.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(text)}`, undefined, { timeout });
}

/** Saves a screenshot of the host page under ARTIFACTS and returns its path. */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
