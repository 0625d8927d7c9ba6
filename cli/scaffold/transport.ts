import { join } from "node:path";
import { packageRoot } from "../toolbox/package.js";
import { applyFiles, requireProject, type ApplyOptions, type ApplyResult } from "./apply.js";
import { validateName } from "./names.js";
import { renderTemplateTree } from "./render.js";

export interface TransportOptions extends ApplyOptions {
  project: string;
  name: string;
  /** Also deliver events by push (`subscribe`), declaring the "push" capability. */
  push: boolean;
}

/** The class a transport name makes: `Socket` gives SocketTransport. */
export function transportClassName(name: string): string {
  const names = validateName(name, "transport");
  return names.pascal.endsWith("Transport") ? names.pascal : `${names.pascal}Transport`;
}

/**
 * The lines a user adds to src/run.ts to serve over the new transport: one server
 * connection per accepted TCP socket (the transport takes any Duplex). The command prints
 * them and the generated file's header comment holds them.
 */
export function transportWiring(name: string): string[] {
  const names = validateName(name, "transport");
  const className = transportClassName(name);
  return [
    `import { createServer as createTcpServer } from "node:net";`,
    `import { ${className} } from "./transports/${names.kebab}.js";`,
    `createTcpServer((socket) => void server.connect(new ${className}(socket))).listen(4000);`,
  ];
}

/** `mcp-gen transport <Name>`: a working transport and its contract test. */
export async function generateTransport(options: TransportOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "transport");
  const root = requireProject(options.project);
  const className = transportClassName(options.name);
  const view = { className, names, push: options.push, wiring: transportWiring(options.name) };
  const created = await renderTemplateTree(join(packageRoot(), "templates", "transport"), view, { fileName: names.kebab });
  return applyFiles(root, created, [], options);
}
