/**
 * Run by test/run.mjs before the test runner: when a pinned upstream schema is reachable
 * from none of its sources, the suite would fail file after file with the same message, so
 * it stops here, in its first seconds, with that one line (and exit 1).
 */
import { firstUnreachableSchema } from "./schemas.js";

const reason = firstUnreachableSchema();
if (reason !== undefined) {
  process.stderr.write(`error: ${reason}\n`);
  process.exitCode = 1;
}
