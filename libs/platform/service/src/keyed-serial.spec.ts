import { KeyedSerial } from './keyed-serial';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyedSerial', () => {
  it('runs the tasks of one key one after another, in the order given, and other keys alongside', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await sleep(ms);
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([serial.run('a', task('a1', 20)), serial.run('a', task('a2', 1)), serial.run('b', task('b1', 5))]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'));
  });

  it('starts the next task after one that failed, and hands each caller its own outcome', async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('k', async () => {
      throw new Error('first failed');
    });
    const next = serial.run('k', async () => 'second ran');
    await expect(failed).rejects.toThrow('first failed');
    await expect(next).resolves.toBe('second ran');
  });

  it('is idle once every queued task has settled, including tasks queued while waiting', async () => {
    const serial = new KeyedSerial();
    let done = 0;
    void serial.run('k', async () => {
      await sleep(10);
      done++;
      void serial.run('j', async () => {
        await sleep(10);
        done++;
      });
    });
    await serial.idle();
    expect(done).toBe(2);
  });
});
