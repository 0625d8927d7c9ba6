/**
 * Members that share one interval timer, for what every stream of a kind does on the same
 * beat (a keep-alive, a stall check): a timer costs more than a Set entry, and 10,000
 * streams share one. The timer runs only while the group has members. Not unref'd: the
 * open sockets keep the process alive anyway, and a ref'd timer is visible to leak checks
 * (process.getActiveResourcesInfo).
 */
export class TimerGroup<T> {
  readonly #members = new Set<T>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly everyMs: number,
    readonly tick: (member: T, now: number) => void,
  ) {}

  add(member: T): void {
    this.#members.add(member);
    this.#timer ??= setInterval(() => {
      const now = Date.now();
      for (const member of this.#members) this.tick(member, now); // a member leaving the set during its tick is safe
    }, this.everyMs);
  }

  delete(member: T): void {
    this.#members.delete(member);
    if (this.#members.size > 0 || this.#timer === undefined) return;
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
  ) {}

  for(key: number): TimerGroup<T> {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = new TimerGroup(this.everyMs(key), this.tick)));
    return group;
  }
}
