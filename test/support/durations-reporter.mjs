// A second reporter for `TEST_DURATIONS=1 node test/run.mjs`: each test file's time, slowest first,
// to see what a tier spends its minute on. A file's time is the sum of its top-level tests
// (they run one after another), so it leaves out loading the file.
export default async function* durations(source) {
  const byFile = new Map();
  for await (const event of source) {
    const ended = event.type === "test:pass" || event.type === "test:fail";
    if (!ended || event.data.nesting !== 0 || !event.data.file) continue;
    const entry = byFile.get(event.data.file) ?? { ms: 0, failed: false };
    entry.ms += event.data.details?.duration_ms ?? 0;
    entry.failed ||= event.type === "test:fail";
    byFile.set(event.data.file, entry);
  }
  yield "\nper-file durations (sum of top-level tests):\n";
  for (const [file, { ms, failed }] of [...byFile].sort((a, b) => b[1].ms - a[1].ms)) {
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(`${process.cwd()}/`, "")}${failed ? "  (failed)" : ""}\n`;
  }
}
