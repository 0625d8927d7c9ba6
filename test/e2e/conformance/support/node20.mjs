// Preload (`node --import`) for running the conformance CLI on Node 20: adds the
// fs.globSync it needs (see fs-glob.mjs). On Node 22 and newer it does nothing.
import fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") register("./fs-glob.mjs", import.meta.url);
