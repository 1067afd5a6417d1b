import { createParser } from 'eventsource-parser';

/** One Server-Sent Event as it came off the wire: `event` defaults to `message`, `data` lines joined by `\n`. */
export interface RawFrame {
  id: string | undefined;
  event: string;
  data: string;
}

/** Turns chunks of an event stream (text or bytes, split anywhere) into whole frames; comments (`: keepalive`) are dropped. */
export interface FrameDecoder {
  /** Feeds a chunk; answers the frames it completed. */
  push(chunk: string | Uint8Array): RawFrame[];
  /** The end of the stream: an unterminated last frame is discarded, as the SSE standard says. */
  end(): RawFrame[];
}

/** A decoder over `eventsource-parser` (UTF-8 split across chunks is kept whole). */
export function createFrameDecoder(): FrameDecoder {
  const out: RawFrame[] = [];
  const parser = createParser({ onEvent: (e) => out.push({ id: e.id, event: e.event || 'message', data: e.data }) });
  const text = new TextDecoder();
  const drain = () => out.splice(0, out.length);
  return {
    push(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
      return drain();
    },
    end() {
      const rest = text.decode();
      if (rest) parser.feed(rest);
      return drain();
    },
  };
}

/**
 * The frames of a response body. `idleTimeoutMs`: when nothing (not even a keep-alive comment)
 * arrives for that long the connection is taken as dead and the body is cancelled, which ends the
 * iteration like a dropped connection does.
 */
export async function* readFrames(body: ReadableStream<Uint8Array> | null, idleTimeoutMs = 0): AsyncGenerator<RawFrame> {
  if (!body) return;
  const reader = body.getReader();
  const decoder = createFrameDecoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    if (idleTimeoutMs > 0) timer = setTimeout(() => void reader.cancel().catch(() => undefined), idleTimeoutMs);
  };
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arm();
      yield* decoder.push(value);
    }
    yield* decoder.end();
  } finally {
    if (timer) clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}
