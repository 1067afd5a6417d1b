import fs from 'node:fs';

/**
 * Captures what the platform writes to stdout and stderr. pino writes through sonic-boom with
 * fs.write/fs.writeSync on fd 1, Nest and console through process.stdout; both are caught here and
 * not forwarded (a debug log of every request would drown the test output).
 */
export function captureLogs(onLine: (line: string) => void, options: { processStreams?: boolean } = {}): () => void {
  let partial = '';
  const feed = (chunk: unknown, encoding?: unknown) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : String(chunk);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l) onLine(l);
  };
  const byteLength = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength);
  const fsAny = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const origWrite = fsAny.write;
  const origWriteSync = fsAny.writeSync;
  fsAny.write = function (this: unknown, fd: unknown, chunk: unknown, ...rest: unknown[]) {
    if (fd !== 1 && fd !== 2) return origWrite.call(this, fd, chunk, ...rest);
    feed(chunk, rest[0]);
    const cb = rest.reverse().find((a) => typeof a === 'function') as ((e: null, n: number) => void) | undefined;
    if (cb) process.nextTick(cb, null, byteLength(chunk));
    return undefined;
  };
  fsAny.writeSync = function (this: unknown, fd: unknown, chunk: unknown, ...rest: unknown[]) {
    if (fd !== 1 && fd !== 2) return origWriteSync.call(this, fd, chunk, ...rest);
    feed(chunk, rest[0]);
    return byteLength(chunk);
  };
  // Without processStreams only pino's fd writes are caught: the test runner's own console output
  // (which goes through process.stdout in a single-process run) still reaches the terminal.
  const streams = options.processStreams === false ? [] : ([process.stdout, process.stderr] as const);
  const origStream = streams.map((s) => s.write);
  for (const s of streams) {
    s.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      feed(chunk, encoding);
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    }) as typeof s.write;
  }
  return () => {
    if (partial) onLine(partial);
    fsAny.write = origWrite;
    fsAny.writeSync = origWriteSync;
    streams.forEach((s, i) => (s.write = origStream[i]));
  };
}
