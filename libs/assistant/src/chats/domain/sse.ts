/** One Server-Sent Events frame. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/**
 * Splits an SSE byte stream into frames (the subset flow-runtime writes: `id`, `event`, `data`
 * lines, comments). Hand-written: the few lines here are all the parsing a service-to-service
 * stream needs, and the client-side parsers in npm expect a browser EventSource or a fetch wrapper.
 */
export async function* sseFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const frame: SseFrame = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0 && frame.id === undefined) continue;
      frame.data = data.join('\n');
      yield frame;
    }
  }
}

/** Encodes a frame for the wire. */
export function encodeFrame(id: number | string, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
