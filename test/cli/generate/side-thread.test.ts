import assert from "node:assert/strict";
import { test } from "node:test";
import { emitMaps } from "../../../cli/generate/emit-maps.js";
import { formatClaimed } from "../../../cli/generate/format.js";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { startSideThread } from "../../../cli/generate/side-thread.js";
import type { MapsIR } from "../../../cli/generate/ir.js";
import { schemaPath } from "../../support/schemas.js";

const SLOW = { timeout: 120_000 };

test("the side thread emits the same maps as this thread and formats the files it claims", SLOW, async () => {
  const loaded = await loadSchema(schemaPath("2026-07-28"));
  const { maps } = buildIR(normalizeSchema(loaded), { revision: "2026-07-28", sha256: loaded.sha256, pinned: true });
  const shared: Array<[string, string]> = Array.from({ length: 12 }, (_, i) => [`runtime/f${i}.ts`, `export const f${i}=${i}`]);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const side = startSideThread();
  try {
    const fromSide = side.start({ maps, shared, next });
    const mine = await formatClaimed(shared, next);
    assert.deepEqual(await fromSide.maps, await emitMaps(maps));
    const all = [...mine, ...(await fromSide.formatted)].map(([path]) => path).sort();
    assert.deepEqual(all, shared.map(([path]) => path).sort(), "every file formatted once, by one of the two");
  } finally {
    await side.stop();
  }
});

test("a failure in the side thread comes back as a rejection, not a hang", SLOW, async () => {
  const side = startSideThread();
  try {
    const broken = { clientRequests: null } as unknown as MapsIR;
    await assert.rejects(side.start({ maps: broken, shared: [], next: new Int32Array(new SharedArrayBuffer(4)) }).maps, /side thread/);
  } finally {
    await side.stop();
  }
});
