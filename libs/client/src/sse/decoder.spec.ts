import { createFrameDecoder, readFrames } from './decoder';

const feedAll = (chunks: Array<string | Uint8Array>) => {
  const d = createFrameDecoder();
  return [...chunks.flatMap((c) => d.push(c)), ...d.end()];
};

describe('SSE frame decoding', () => {
  const wire = 'id: 1\nevent: session\ndata: {"sessionId":"s-123456789","runId":"r1"}\n\n: keepalive\n\nid: 2\nevent: token\ndata: {"chunk":"Zażółć ","index":0,"nodeId":"chat"}\n\n';

  it('gives the same frames however the bytes are split, comments dropped', () => {
    const whole = feedAll([wire]);
    expect(whole).toEqual([
      { id: '1', event: 'session', data: '{"sessionId":"s-123456789","runId":"r1"}' },
      { id: '2', event: 'token', data: '{"chunk":"Zażółć ","index":0,"nodeId":"chat"}' },
    ]);
    const bytes = new TextEncoder().encode(wire);
    // Every split point, including inside a multi-byte UTF-8 character and inside "\n\n".
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(feedAll([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(whole);
    }
    expect(feedAll([...bytes].map((b) => new Uint8Array([b])))).toEqual(whole);
  });

  it('joins multi-line data with \\n, accepts CRLF, defaults the event name to message', () => {
    expect(feedAll(['id: 7\r\nevent: message\r\ndata: {"content":\r\ndata: "two lines"}\r\n\r\n', 'data: plain\n\n'])).toEqual([
      { id: '7', event: 'message', data: '{"content":\n"two lines"}' },
      { id: undefined, event: 'message', data: 'plain' },
    ]);
  });

  it('discards an unterminated last frame (the connection dropped inside it)', () => {
    expect(feedAll(['id: 1\nevent: token\ndata: {"chunk":"a"}\n\nid: 2\nevent: token\ndata: {"chu'])).toEqual([{ id: '1', event: 'token', data: '{"chunk":"a"}' }]);
  });

  it('reads frames off a byte stream and cancels it when an idle timeout passes', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('id: 1\nevent: session\ndata: {}\n\n'));
        // ...then nothing at all, not even a keep-alive.
      },
      cancel() {
        cancelled = true;
      },
    });
    const started = Date.now();
    const frames = [];
    for await (const f of readFrames(body, 100)) frames.push(f);
    expect(frames).toEqual([{ id: '1', event: 'session', data: '{}' }]);
    expect(cancelled).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
