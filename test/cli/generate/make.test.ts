import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { readRuntimeSource } from "../../../cli/generate/emit-runtime.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { makeOutput } from "../../../cli/generate/make.js";
import { runtimeSourceDir } from "../../../cli/generate/paths.js";
import { identifySchema, readLock } from "../../../cli/generate/verify.js";
import { schemaPath } from "../../support/schemas.js";

const SLOW = { timeout: 300_000 };
const SEEDS = [1, 2, 3];

/** A small seeded generator (mulberry32), so that a failing order can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function shuffleKeys(object: Record<string, unknown>, next: () => number): Record<string, unknown> {
  return Object.fromEntries(shuffled(Object.entries(object), next));
}

/** The output of the pinned 2026-07-28 schema after `edit`, made under the pinned identity so that only the edit can change bytes. */
async function outputOf(edit: (schema: any) => void): Promise<Map<string, string>> {
  const path = schemaPath("2026-07-28");
  const loaded = await loadSchema(path);
  const identity = identifySchema(loaded, readLock());
  const json = JSON.parse(readFileSync(path, "utf8"));
  edit(json);
  return (await makeOutput({ ...loaded, json }, identity, readLock(), readRuntimeSource(runtimeSourceDir))).files;
}

test(`the same schema with its $defs shuffled gives the same bytes in every file (seeds ${SEEDS.join(", ")})`, SLOW, async () => {
  const reference = await outputOf(() => {});
  for (const seed of SEEDS) {
    const next = random(seed);
    const output = await outputOf((schema) => {
      schema.$defs = shuffleKeys(schema.$defs, next);
    });
    assert.deepEqual([...output.keys()], [...reference.keys()], `seed ${seed}`);
    for (const [path, text] of reference) assert.ok(output.get(path) === text, `seed ${seed}: ${path} differs`);
  }
});

test(`the maps do not depend on the order of the properties and union members they are derived from (seeds ${SEEDS.join(", ")})`, SLOW, async () => {
  const reference = await outputOf(() => {});
  for (const seed of SEEDS) {
    const next = random(seed);
    const output = await outputOf((schema) => {
      const defs = schema.$defs;
      defs.SubscriptionFilter.properties = shuffleKeys(defs.SubscriptionFilter.properties, next);
      defs.ServerCapabilities.properties = shuffleKeys(defs.ServerCapabilities.properties, next);
      for (const group of Object.values(defs.ServerCapabilities.properties) as Array<{ properties?: Record<string, unknown> }>) {
        if (group.properties) group.properties = shuffleKeys(group.properties, next);
      }
      for (const union of ["ClientRequest", "ClientNotification", "ServerNotification"]) {
        if (Array.isArray(defs[union]?.anyOf)) defs[union].anyOf = shuffled(defs[union].anyOf, next);
      }
    });
    for (const path of ["methods.ts", "capabilities.ts"]) assert.ok(output.get(path) === reference.get(path), `seed ${seed}: ${path} differs`);
  }
});
