/**
 * The steps of `npm run build` after tsc: every scaffold template stored as rendering
 * nodes in dist/templates.json (creating a project then never loads handlebars, see
 * scaffold/template.ts), the pinned schemas stored for the package to carry
 * (generate/pinned-copies.ts), then the runtime package (built before tsc) packed into
 * dist/runtime.tgz and this package into dist/package.tgz: the tarballs a project made from
 * this checkout keeps in vendor/ (packing them at each create would cost more than the rest
 * of the create).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PINNED_COPIES, storePinnedCopies } from "./generate/pinned-copies.js";
import { readLock } from "./generate/verify.js";
import { listFiles } from "./toolbox/files.js";
import { packageRoot } from "./toolbox/package.js";
import { packTarball, PACKED_BUILD, PACKED_RUNTIME } from "./toolbox/tarball.js";
import { parseTemplate, PRECOMPILED_TEMPLATES, type PrecompiledTemplate } from "./scaffold/render.js";

const root = packageRoot();
const stored: Record<string, PrecompiledTemplate> = {};
for (const path of listFiles(join(root, "templates"), "templates/").filter((file) => file.endsWith(".hbs"))) {
  const source = readFileSync(join(root, path), "utf8");
  stored[path] = { source, nodes: await parseTemplate(source) };
}
writeFileSync(join(root, PRECOMPILED_TEMPLATES), `${JSON.stringify(stored)}\n`);
const copies = await storePinnedCopies(readLock());
const carried = copies.flatMap((copy) => ("from" in copy ? [copy.revision] : []));
const missing = copies.flatMap((copy) => ("missing" in copy ? [copy] : []));
if (carried.length > 0) console.log(`stored the pinned schemas of ${carried.join(", ")} in ${PINNED_COPIES}/`);
if (missing.length > 0) {
  console.log(
    `warning: ${PINNED_COPIES}/ lacks ${missing.map((copy) => copy.revision).join(", ")} (first cause: ${missing[0]!.missing}); ` +
      "this build remakes those only from MCP_SCHEMAS_DIR or the network: build with MCP_SCHEMAS_DIR set to carry them",
  );
}
// The runtime first: this package's tarball carries it.
writeFileSync(join(root, PACKED_RUNTIME), packTarball(join(root, "packages", "runtime")));
writeFileSync(join(root, PACKED_BUILD), packTarball(root));
console.log(`stored ${Object.keys(stored).length} templates in ${PRECOMPILED_TEMPLATES}, packed ${PACKED_RUNTIME} and ${PACKED_BUILD}`);
