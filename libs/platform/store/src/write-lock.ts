/**
 * A collection's write lock in this process, for servers that do not isolate writes themselves
 * (FerretDB 1.x applies an update as read, modify, write back by `_id`).
 *
 * Two kinds of holder:
 * - `exclusive`: alone on the collection (multi-document writes, writes that may change a unique
 *   key, index builds);
 * - `keyed`: beside other keyed holders, but alone on each of its keys (a document's `_id`, the
 *   unique keys an insert claims). The keys are worked out after the collection is held shared, so
 *   an index build cannot change them in between.
 *
 * Waiters are served in arrival order: an exclusive waiter holds back keyed waiters behind it (no
 * starvation), and holders of one key run in the order they asked for it.
 */
export class WriteLock {
  private shared = 0;
  private exclusiveHeld = false;
  private readonly gateQueue: Array<{ exclusive: boolean; grant: () => void }> = [];
  /** Per key, the tail of its chain of holders (deleted when the last one releases). */
  private readonly keyTails = new Map<string, { tail: Promise<void>; holders: number }>();

  /** Runs `task` with the collection to itself. */
  async exclusive<R>(task: () => Promise<R>): Promise<R> {
    await this.enter(true);
    try {
      return await task();
    } finally {
      this.leave(true);
    }
  }

  /**
   * Runs `task` holding the collection shared and each of `keys()` exclusively; when `keys()`
   * answers null (the write turned out to need the collection to itself), runs it exclusively.
   */
  async keyed<R>(
    keys: () => Promise<readonly string[] | null> | readonly string[] | null,
    task: () => Promise<R>,
  ): Promise<R> {
    await this.enter(false);
    let shared = true;
    try {
      const asked = await keys();
      if (asked === null) {
        shared = false;
        this.leave(false);
        return await this.exclusive(task);
      }
      // Sorted and deduplicated: every holder takes its keys in one order, so none waits in a cycle.
      const wanted = [...new Set(asked)].sort();
      const releases: Array<() => void> = [];
      try {
        for (const k of wanted) releases.push(await this.takeKey(k));
        return await task();
      } finally {
        for (const release of releases) release();
      }
    } finally {
      if (shared) this.leave(false);
    }
  }

  /** Whether nothing holds or waits for the lock (so its owner may forget it). */
  get idle(): boolean {
    return this.shared === 0 && !this.exclusiveHeld && this.gateQueue.length === 0 && this.keyTails.size === 0;
  }

  private enter(exclusive: boolean): Promise<void> {
    if (this.gateQueue.length === 0 && this.grantable(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise<void>((grant) => this.gateQueue.push({ exclusive, grant }));
  }

  private grantable(exclusive: boolean): boolean {
    return !this.exclusiveHeld && (!exclusive || this.shared === 0);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = true;
    else this.shared++;
  }

  private leave(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = false;
    else this.shared--;
    while (this.gateQueue.length > 0 && this.grantable(this.gateQueue[0].exclusive)) {
      const next = this.gateQueue.shift() as { exclusive: boolean; grant: () => void };
      this.take(next.exclusive);
      next.grant();
    }
  }

  /** Waits for `key`'s earlier holders; resolves to the release of this hold. */
  private async takeKey(key: string): Promise<() => void> {
    const entry = this.keyTails.get(key) ?? { tail: Promise.resolve(), holders: 0 };
    const before = entry.tail;
    let release!: () => void;
    entry.tail = new Promise<void>((r) => (release = r));
    entry.holders++;
    this.keyTails.set(key, entry);
    await before;
    return () => {
      release();
      if (--entry.holders === 0) this.keyTails.delete(key);
    };
  }
}
