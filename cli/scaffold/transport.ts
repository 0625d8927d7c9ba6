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

/** `mcp-gen transport <Name>`: a working transport and its contract test. */
export async function generateTransport(options: TransportOptions): Promise<ApplyResult> {
  const names = validateName(options.name, "transport");
  const root = requireProject(options.project);
  const className = names.pascal.endsWith("Transport") ? names.pascal : `${names.pascal}Transport`;
  const view = { className, names, push: options.push };
  const created = await renderTemplateTree(join(packageRoot(), "templates", "transport"), view, { fileName: names.kebab });
  return applyFiles(root, created, [], options);
}
