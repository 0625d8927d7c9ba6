/**
 * The fuzz pass on a small fixed seed set (bench/fuzz/run.ts runs many more): random and
 * mutated JSON-RPC frames, headers and bodies against the HTTP entry point and against a
 * legacy HTTP session at every initialize-era revision served (the stdio entry point, a
 * server in a child process, in test/e2e/runtime/transports/fuzz.test.ts).
 * No crash, no unhandled rejection, every request answered or refused per the spec.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fuzzHttp } from "../../../bench/fuzz/http.js";
import { fuzzLegacyHttp } from "../../../bench/fuzz/legacy-http.js";
import { LEGACY_VERSIONS } from "../../../packages/runtime/src/legacy/translate.js";

const SEEDS = [1, 2, 3];
const FRAMES = 150;
const T = { timeout: 120_000 };

describe("fuzz: every frame answered or refused per the spec, nothing crashes", () => {
  for (const seed of SEEDS) {
    it(`HTTP entry point, seed ${seed}`, T, async () => {
      const report = await fuzzHttp(seed, FRAMES);
      assert.deepEqual(report.failures, []);
      assert.equal(report.answered, FRAMES, "each frame got an answer that fits it");
      assert.ok(report.tasks > 0, "tasks were made, and the tasks verbs aimed at them");
    });
  }
  for (const version of LEGACY_VERSIONS) {
    it(`a legacy HTTP session at ${version}, seed ${SEEDS[0]}`, T, async () => {
      const report = await fuzzLegacyHttp(SEEDS[0]!, FRAMES, version);
      assert.deepEqual(report.failures, []);
      assert.equal(report.answered, FRAMES, "each frame got an answer that fits it, and the session kept answering ping");
    });
  }
});
