/**
 * The fuzz pass on the stdio entry point (a server in a child process), on the same small
 * fixed seed set as test/runtime/transports/fuzz.test.ts (bench/fuzz/run.ts runs many more).
 * No crash, no unhandled rejection, every request answered or refused per the spec.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fuzzStdio } from "../../../../bench/fuzz/stdio.js";

const SEEDS = [1, 2, 3];
const FRAMES = 150;
const T = { timeout: 120_000 };

describe("fuzz: every frame answered or refused per the spec, nothing crashes", () => {
  for (const seed of SEEDS) {
    it(`stdio entry point, seed ${seed}`, T, async () => {
      const report = await fuzzStdio(seed, FRAMES);
      assert.deepEqual(report.failures, []);
      assert.ok(report.requests > 0 && report.answered >= report.requests, "requests were sent and answered");
    });
  }
});
