import { linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, closeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CliError } from "../errors.js";
import { fsFailure } from "./fs-error.js";

/** The lock file a folder holds while a command edits it. */
export const LOCK_FILE = ".mcp-gen.lock";

export interface LockOptions {
  /** How long to wait for the run holding the lock to finish before giving up. */
  waitMs?: number;
  /** A lock older than this is taken over whoever wrote it (a command holds it for seconds). */
  staleMs?: number;
}

const DEFAULTS = { waitMs: 60_000, staleMs: 10 * 60_000 };
const POLL_MS = 50;

/**
 * Runs `edit` while holding `dir`'s lock, so that two commands editing the same project
 * (each reads files, then writes its changes) run one after the other instead of one
 * silently undoing the other. A lock left by a run that died (its process is gone, or it
 * is older than `staleMs`) is taken over; a live one is waited for, up to `waitMs` for
 * each run that holds it in turn.
 */
export async function withFolderLock<T>(dir: string, edit: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const { waitMs, staleMs } = { ...DEFAULTS, ...options };
  const path = join(dir, LOCK_FILE);
  const mine = `${process.pid} ${hostname()} ${Date.now()}`;
  let giveUpAt = Date.now() + waitMs;
  let waitingFor: string | undefined;
  while (!tryCreate(path, mine)) {
    const holder = readHolder(path);
    if (holder !== undefined && isStale(path, holder, staleMs)) {
      takeOver(path, holder);
      continue;
    }
    if (holder !== undefined && holder.text !== waitingFor) {
      // Each holder gets the whole wait: runs queued behind each other all get their turn.
      waitingFor = holder.text;
      giveUpAt = Date.now() + waitMs;
    }
    if (Date.now() >= giveUpAt) {
      throw new CliError(`another mcp-gen run${holder?.pid ? ` (pid ${holder.pid})` : ""} is editing ${dir}`, {
        hint: `try again once it has finished, or delete ${path} if no mcp-gen is running`,
      });
    }
    await sleep(POLL_MS + Math.floor(Math.random() * POLL_MS));
  }
  try {
    return await edit();
  } finally {
    if (readHolder(path)?.text === mine) rmSync(path, { force: true });
  }
}

interface Holder {
  text: string;
  pid: number | undefined;
  host: string | undefined;
}

function tryCreate(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw fsFailure(error, `cannot lock ${path}`);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock's content, or undefined when it vanished meanwhile. */
function readHolder(path: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const [pid, host] = text.split(" ");
  return { text, pid: Number.isInteger(Number(pid)) && Number(pid) > 0 ? Number(pid) : undefined, host };
}

/**
 * A lock is stale when it is older than `staleMs`, or when it names a process of this
 * machine that no longer runs. One without a readable pid may be mid-write: only age counts.
 */
function isStale(path: string, holder: Holder, staleMs: number): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return false;
  }
  if (age > staleMs) return true;
  if (holder.pid === undefined || holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Removes a stale lock, unless another run took it over first: the lock is moved aside,
 * and put back when what was moved is not the stale lock that was read.
 */
function takeOver(path: string, stale: Holder): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (readHolder(aside)?.text !== stale.text) {
    try {
      linkSync(aside, path);
    } catch {
      // a third run holds the lock now; the one moved aside was already superseded
    }
  }
  rmSync(aside, { force: true });
}
