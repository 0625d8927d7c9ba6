/**
 * The fuzz pass, many seeds: `node --import tsx bench/fuzz/run.ts [--seeds 1-50] [--count 300]
 * [--target http|stdio|legacy|both|all]`. `legacy` fuzzes a legacy session, over stdio and
 * over HTTP, at every initialize-era revision the runtime serves; `all` is both plus legacy.
 * The HTTP runs open with calls that make tasks and aim the tasks verbs at them. Prints one line per
 * seed and target, then every broken rule with its seed; exits 1 if any. Loopback only; each
 * run is bounded in frames and time.
 */
import { fuzzHttp } from "./http.js";
import { fuzzLegacyHttp } from "./legacy-http.js";
import { summary, type FuzzReport } from "./report.js";
import { fuzzStdio } from "./stdio.js";
import { LEGACY_VERSIONS } from "../../packages/runtime/src/legacy/translate.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

function seedList(spec: string): number[] {
  return spec.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number);
    if (!Number.isInteger(from) || (to !== undefined && !Number.isInteger(to))) throw new Error(`--seeds: "${part}" is not a number or a range like 1-50`);
    return Array.from({ length: (to ?? from) - from + 1 }, (_, i) => from + i);
  });
}

const seeds = seedList(option("seeds", "1-20"));
const count = Number(option("count", "300"));
const target = option("target", "both");
const failures: string[] = [];
for (const seed of seeds) {
  const reports: FuzzReport[] = [];
  if (target === "http" || target === "both" || target === "all") reports.push(await fuzzHttp(seed, count));
  if (target === "stdio" || target === "both" || target === "all") reports.push(await fuzzStdio(seed, count));
  if (target === "legacy" || target === "all") {
    for (const version of LEGACY_VERSIONS) reports.push(await fuzzStdio(seed, count, version), await fuzzLegacyHttp(seed, count, version));
  }
  for (const report of reports) {
    console.log(summary(report));
    failures.push(...report.failures);
  }
}
for (const failure of failures) console.log(`FAIL ${failure}`);
process.exit(failures.length === 0 ? 0 : 1);
