import { createRequire } from "node:module";

/**
 * The CommonJS code-generation libraries, loaded through `require`: `import()` of a CommonJS
 * package makes Node scan its source for export names first, tens of milliseconds for
 * ts-morph on every cold run, and none of that is needed here.
 */
const require = createRequire(import.meta.url);

export const loadTsMorph = (): typeof import("ts-morph") => require("ts-morph");

export const loadJsonSchemaToTypescript = (): typeof import("json-schema-to-typescript") => require("json-schema-to-typescript");
