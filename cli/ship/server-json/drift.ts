/**
 * Where a server.json on disk differs from what the project makes of it, one entry per
 * field: `version`, `packages[0].version`, `remotes` (removed), and for lists of named
 * entries (environment variables, headers) the entry by name, so that a new variable reads
 * `packages[0].environmentVariables[WEATHER_API_KEY] is missing` rather than an index shift.
 */

export interface Drift {
  field: string;
  /** missing: the project has it and the file does not; extra: the reverse; changed: both, unequal. */
  kind: "missing" | "extra" | "changed";
}

/** At most this many differences are listed; a file rewritten by hand can differ everywhere. */
export const MAX_DRIFTS = 20;

export function driftOf(expected: unknown, actual: unknown, field = ""): Drift[] {
  if (isNamedList(expected) && isNamedList(actual) && (expected.length > 0 || actual.length > 0)) return namedListDrift(expected, actual, field);
  if (isRecord(expected) && isRecord(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => {
      const at = field === "" ? key : `${field}.${key}`;
      if (!(key in actual)) return [{ field: at, kind: "missing" as const }];
      if (!(key in expected)) return [{ field: at, kind: "extra" as const }];
      return driftOf(expected[key], actual[key], at);
    });
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    return Array.from({ length }, (_, index) => {
      const at = `${field}[${index}]`;
      if (index >= actual.length) return [{ field: at, kind: "missing" as const }];
      if (index >= expected.length) return [{ field: at, kind: "extra" as const }];
      return driftOf(expected[index], actual[index], at);
    }).flat();
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [{ field: field || "(the document)", kind: "changed" }];
}

export function describeDrift(drift: Drift): string {
  if (drift.kind === "missing") return `${drift.field} is missing`;
  if (drift.kind === "extra") return `${drift.field} is no longer in the project`;
  return `${drift.field} differs`;
}

type Named = Record<string, unknown> & { name: string };

function namedListDrift(expected: Named[], actual: Named[], field: string): Drift[] {
  const names = [...new Set([...expected.map((entry) => entry.name), ...actual.map((entry) => entry.name)])];
  return names.flatMap((name) => {
    const at = `${field}[${name}]`;
    const want = expected.find((entry) => entry.name === name);
    const have = actual.find((entry) => entry.name === name);
    if (!have) return [{ field: at, kind: "missing" as const }];
    if (!want) return [{ field: at, kind: "extra" as const }];
    return driftOf(want, have, at);
  });
}

function isNamedList(value: unknown): value is Named[] {
  return Array.isArray(value) && value.every((entry) => isRecord(entry) && typeof entry.name === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
