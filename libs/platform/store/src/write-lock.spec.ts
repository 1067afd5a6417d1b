import { WriteLock } from './write-lock';

/** A task that records when it starts and ends, and finishes when told. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return {
    open,
    task: async () => {
      log.push(`${name}+`);
      await opened;
      log.push(`${name}-`);
      return name;
    },
  };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('WriteLock', () => {
  it('runs keyed writes of different keys side by side', async () => {
    const lock = new WriteLock();
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const pa = lock.keyed(() => ['doc1'], a.task);
    const pb = lock.keyed(() => ['doc2'], b.task);
    await tick();
    expect(log).toEqual(['a+', 'b+']);
    b.open();
    a.open();
    await expect(Promise.all([pa, pb])).resolves.toEqual(['a', 'b']);
    expect(lock.idle).toBe(true);
  });

  it('runs keyed writes of one key one at a time, in the order they asked', async () => {
    const lock = new WriteLock();
    const log: string[] = [];
    const gates = ['a', 'b', 'c'].map((n) => gate(log, n));
    const done = gates.map((g) => lock.keyed(async () => ['doc1', 'other'], g.task));
    await tick();
    expect(log).toEqual(['a+']);
    gates[2].open();
    gates[1].open();
    await tick();
    expect(log).toEqual(['a+']);
    gates[0].open();
    await Promise.all(done);
    expect(log).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    expect(lock.idle).toBe(true);
  });

  it('keeps an exclusive write alone, and keyed writes that come after it wait for it', async () => {
    const lock = new WriteLock();
    const log: string[] = [];
    const k1 = gate(log, 'k1');
    const x = gate(log, 'x');
    const k2 = gate(log, 'k2');
    const p1 = lock.keyed(() => ['doc1'], k1.task);
    const px = lock.exclusive(x.task);
    const p2 = lock.keyed(() => ['doc2'], k2.task);
    x.open();
    k2.open();
    await tick();
    expect(log).toEqual(['k1+']);
    k1.open();
    await Promise.all([p1, px, p2]);
    expect(log).toEqual(['k1+', 'k1-', 'x+', 'x-', 'k2+', 'k2-']);
  });

  it('runs a keyed write exclusively when its keys answer null', async () => {
    const lock = new WriteLock();
    const log: string[] = [];
    const k = gate(log, 'k');
    const n = gate(log, 'n');
    const pk = lock.keyed(() => ['doc1'], k.task);
    const pn = lock.keyed(async () => null, n.task);
    n.open();
    await tick();
    expect(log).toEqual(['k+']);
    k.open();
    await Promise.all([pk, pn]);
    expect(log).toEqual(['k+', 'k-', 'n+', 'n-']);
    expect(lock.idle).toBe(true);
  });

  it('releases what a failed write or a failed key lookup held', async () => {
    const lock = new WriteLock();
    await expect(
      lock.keyed(
        () => ['doc1'],
        async () => {
          throw new Error('write failed');
        },
      ),
    ).rejects.toThrow('write failed');
    await expect(
      lock.keyed(
        async () => {
          throw new Error('no index info');
        },
        async () => 'never',
      ),
    ).rejects.toThrow('no index info');
    await expect(
      lock.exclusive(async () => {
        throw new Error('exclusive failed');
      }),
    ).rejects.toThrow('exclusive failed');
    expect(lock.idle).toBe(true);
    await expect(lock.keyed(() => ['doc1'], async () => 'next')).resolves.toBe('next');
    await expect(lock.exclusive(async () => 'after')).resolves.toBe('after');
  });
});
