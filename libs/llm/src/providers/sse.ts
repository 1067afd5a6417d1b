/**
 * Server-Sent Events as OpenAI-compatible servers send them: events separated by a blank line,
 * `data:` lines joined with newlines, comments (`:`) and other fields ignored; CRLF, LF and CR
 * line ends all accepted. Yields the data of each event, `[DONE]` included.
 */
export async function* sseData(body: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  const flush = function* (): Generator<string> {
    if (data.length > 0) {
      yield data.join('\n');
      data = [];
    }
  };
  const line = function* (raw: string): Generator<string> {
    if (raw === '') {
      yield* flush();
      return;
    }
    if (raw.startsWith(':')) return;
    const colon = raw.indexOf(':');
    const field = colon < 0 ? raw : raw.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : raw.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    data.push(value);
  };
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const cr = buffer.indexOf('\r', start);
      const lf = buffer.indexOf('\n', start);
      if (cr < 0 && lf < 0) break;
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        // A CR at the very end may be the first half of CRLF: wait for more input.
        if (cr === buffer.length - 1) break;
        end = cr;
        next = buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      yield* line(buffer.slice(start, end));
      start = next;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer !== '') yield* line(buffer.replace(/\r$/, ''));
  yield* flush();
}
