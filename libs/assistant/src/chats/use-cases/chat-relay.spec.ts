import type { Logger } from '@nestjs/common';
import { ChatRelay, StreamStop } from './chat-relay';

const frame = (id: number, event: string, data: unknown) => new TextEncoder().encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/** A run stream that records whether the relay read it to its end or dropped it early. */
function runStream(afterTerminal: () => Promise<void> = async () => undefined) {
  const seen = { endedNaturally: false, returnedEarly: false };
  async function* body(): AsyncGenerator<Uint8Array> {
    let finished = false;
    try {
      yield frame(1, 'run.started', { versionId: 'v1' });
      yield frame(2, 'run.completed', { output: { content: 'hi' } });
      await afterTerminal();
      yield new TextEncoder().encode(': bye\n\n');
      finished = true;
    } finally {
      if (finished) seen.endedNaturally = true;
      else seen.returnedEarly = true;
    }
  }
  return { body: body(), seen };
}

function relayOf(body: AsyncIterable<Uint8Array>, abort = new AbortController()) {
  const log = { warn: jest.fn() } as unknown as Logger & { warn: jest.Mock };
  const stored: unknown[] = [];
  const relay = new ChatRelay(body, abort, {
    session: { sessionId: 'session-1', runId: 'r1', flowId: 'f', variant: 'stable' },
    startedAt: Date.now(),
    timeoutMs: 10_000,
    log,
    storeReply: async (reply) => void stored.push(reply),
  });
  const out: string[] = [];
  let ended = false;
  const sink = {
    write: (t: string) => void out.push(t),
    end: (last?: string) => {
      if (last !== undefined) out.push(last);
      ended = true;
    },
  };
  return { relay, sink, out, stored, log, ended: () => ended };
}

describe('ChatRelay', () => {
  it('reads the run stream to its end after the terminal frame, so the connection can be reused', async () => {
    const { body, seen } = runStream();
    const r = relayOf(body);
    await r.relay.run(r.sink);
    expect(r.out.map((t) => t.split('\n')[1])).toEqual(['event: session', 'event: message']);
    expect(r.ended()).toBe(true);
    expect(r.stored).toEqual([{ content: 'hi', sources: [], actions: [], status: 'completed' }]);
    expect(seen).toEqual({ endedNaturally: true, returnedEarly: false });
  });

  it('answers the client at the terminal frame, not when the stream ends, and drops a stream that lingers', async () => {
    const abort = new AbortController();
    let release!: () => void;
    const lingering = new Promise<void>((resolve) => (release = resolve));
    // A body that honours the abort the way an HTTP response does: it throws.
    const { body } = runStream(() => Promise.race([lingering, new Promise<void>((_, reject) => abort.signal.addEventListener('abort', () => reject(new Error('aborted'))))]));
    const r = relayOf(body, abort);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const done = r.relay.run(r.sink);
      for (let i = 0; i < 20 && !r.ended(); i++) await new Promise((resolve) => setImmediate(resolve));
      expect(r.ended()).toBe(true);
      expect(abort.signal.aborted).toBe(false);
      jest.advanceTimersByTime(2500);
      await done;
      expect(abort.signal.aborted).toBe(true);
      // The answer was complete: dropping the rest is no error.
      expect(r.log.warn).not.toHaveBeenCalled();
      expect(r.out).toHaveLength(2);
    } finally {
      jest.useRealTimers();
      release();
    }
  });

  it('stops a run that outlives ASSISTANT_RUN_TIMEOUT_MS through its StreamStop and ends with RUN_TIMEOUT', async () => {
    let fail!: (e: Error) => void;
    const broken = new Promise<never>((_r, reject) => (fail = reject));
    async function* body(): AsyncGenerator<Uint8Array> {
      yield frame(1, 'run.started', { versionId: 'v1' });
      await broken;
    }
    const reasons: string[] = [];
    const stop = new StreamStop((reason) => {
      reasons.push(reason.message);
      fail(Object.assign(new Error('aborted', { cause: reason }), { name: 'AbortError' }));
    });
    const log = { warn: jest.fn() } as unknown as Logger;
    const relay = new ChatRelay(body(), stop, { session: { sessionId: 'session-1', runId: 'r1', flowId: 'f', variant: 'stable' }, startedAt: Date.now(), timeoutMs: 30, log, storeReply: async () => undefined });
    const out: string[] = [];
    let ended = false;
    await relay.run({ write: (t) => void out.push(t), end: (last) => ((ended = true), last !== undefined && out.push(last)) });
    expect(reasons).toEqual(['timeout']);
    expect(stop.signal).toMatchObject({ aborted: true });
    expect(ended).toBe(true);
    expect(out[0]).toContain('event: session');
    expect(out[1]).toMatch(/^id: 2\nevent: error\ndata: \{"code":"RUN_TIMEOUT"/);
    stop.abort(new Error('again'));
    expect(reasons).toEqual(['timeout']);
  });
});
