/** What one fuzz run found: counts for the record, and every broken rule with the seed to replay it. */
export interface FuzzReport {
  /** http, stdio, or stdio@<version> for a legacy session at that version. */
  readonly target: string;
  readonly seed: number;
  frames: number;
  requests: number;
  answered: number;
  /** Distinct tasks the run created and then aimed the tasks verbs at (HTTP runs read answers). */
  tasks: number;
  readonly failures: string[];
}

export function newReport(target: FuzzReport["target"], seed: number): FuzzReport {
  return { target, seed, frames: 0, requests: 0, answered: 0, tasks: 0, failures: [] };
}

export function fail(report: FuzzReport, frameIndex: number, what: string, frameText?: string): void {
  if (report.failures.length >= 20) return; // enough to act on; the seed replays the rest
  const shown = frameText === undefined ? "" : ` frame ${JSON.stringify(frameText.slice(0, 160))}`;
  report.failures.push(`${report.target} seed ${report.seed} frame #${frameIndex}: ${what}${shown}`);
}

export function summary(report: FuzzReport): string {
  const verdict = report.failures.length === 0 ? "ok" : `${report.failures.length} FAILED`;
  const tasks = report.tasks > 0 ? `, ${report.tasks} tasks` : "";
  return `${report.target} seed ${report.seed}: ${report.frames} frames, ${report.requests} requests, ${report.answered} answered or refused${tasks}: ${verdict}`;
}
