/**
 * Members that share one interval timer, for what every stream of a kind does on the same
 * beat (a keep-alive, a stall check): a timer costs more than a Set entry, and 10,000
 * streams share one. The timer runs only while the group has members. Not unref'd: the
 * open sockets keep the process alive anyway, and a ref'd timer is visible to leak checks
 * (process.getActiveResourcesInfo).
 *
 * A lingering group (request bodies: members that come and go by the thousand, one at a
 * time) keeps its timer until a beat finds it empty, so members joining one after another
 * reuse one timer instead of starting and stopping one each; that timer is unref'd, since it
 * may outlive its last member by a beat.
 */
import { unrefTimer } from "./http-io.js";

export class TimerGroup<T> {
  readonly #members = new Set<T>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly everyMs: number,
    readonly tick: (member: T, now: number) => void,
    readonly lingers = false,
  ) {}

  add(member: T): void {
    this.#members.add(member);
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#beat(), this.everyMs);
    if (this.lingers) unrefTimer(this.#timer);
  }

  delete(member: T): void {
    this.#members.delete(member);
    if (!this.lingers && this.#members.size === 0) this.#stop();
  }

  #beat(): void {
    if (this.#members.size === 0) return this.#stop(); // only a lingering group gets here empty
    const now = Date.now();
    for (const member of this.#members) this.tick(member, now); // a member leaving the set during its tick is safe
  }

  #stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** One group per key (an interval, a stall time), made on first use and kept. */
export class TimerGroups<T> {
  readonly #groups = new Map<number, TimerGroup<T>>();

  constructor(
    readonly everyMs: (key: number) => number,
    readonly tick: (member: T, now: number) => void,
    readonly lingers = false,
  ) {}

  for(key: number): TimerGroup<T> {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = new TimerGroup(this.everyMs(key), this.tick, this.lingers)));
    return group;
  }
}
