import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmAuthError, LlmBadResponseError, LlmRateLimitError, LlmTargetRefusedError, LlmTimeoutError, LlmUnavailableError } from '../errors';
import { OpenAiCompatibleEmbedder } from '../embedders/openai-compatible.embedder';
import { PrivateHostAllowlist } from '../net/outbound';
import { HttpTransport, type TransportOptions } from './http-transport';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

/** What the fake server does with the next request. */
type Handler = (req: http.IncomingMessage, body: any, res: http.ServerResponse) => void;

const KEY = 'sk-test-secret-123456';

function sse(res: http.ServerResponse, chunks: Array<unknown | string>, opts: { done?: boolean } = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) res.write(`data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`);
  if (opts.done !== false) res.write('data: [DONE]\n\n');
  res.end();
}

const delta = (content: string, finish: string | null = null) => ({ id: 'c1', model: 'gpt-test', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

describe('openai-compatible provider against a server speaking the OpenAI wire format', () => {
  let server: http.Server;
  let baseURL: string;
  const handlers: Handler[] = [];
  const seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const body = raw ? JSON.parse(raw) : undefined;
        seen.push({ path: req.url ?? '', headers: req.headers, body });
        const h = handlers.shift();
        if (!h) {
          res.writeHead(500).end('no handler');
          return;
        }
        h(req, body, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    handlers.length = 0;
    seen.length = 0;
  });

  const allow = new PrivateHostAllowlist('127.0.0.1');
  const provider = (options: TransportOptions = {}) =>
    new OpenAiCompatibleProvider(new HttpTransport({ allowPrivate: (h, a) => allow.allows(h, a), retryBaseMs: 5, ...options }), { id: 'openai-compatible' });
  const settings = (extra: Record<string, unknown> = {}) => ({ providerID: 'openai-compatible', baseURL, model: 'gpt-test', apiKey: KEY, ...extra });
  const messages = [{ role: 'user' as const, content: 'Hello there' }];

  it('answers a non-streamed completion with the provider usage', async () => {
    handlers.push((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'gpt-test-0613', choices: [{ message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } }));
    });
    const result = await provider().chat({ settings: settings({ temperature: 0.2, maxTokens: 50 }), messages });
    expect(result).toMatchObject({ content: 'Hi!', model: 'gpt-test-0613', finishReason: 'stop', usage: { promptTokens: 9, completionTokens: 2, totalTokens: 11, source: 'provider' }, attempts: 1 });
    expect(seen[0].path).toBe('/v1/chat/completions');
    expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0].body).toEqual({ model: 'gpt-test', messages, stream: false, temperature: 0.2, max_tokens: 50 });
  });

  it('streams SSE chunks to [DONE], in order, with usage from the final chunk', async () => {
    handlers.push((_req, _body, res) => sse(res, [delta('Hel'), delta('lo'), delta(' world', 'stop'), { id: 'c1', model: 'gpt-test', choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }]));
    const tokens: string[] = [];
    const result = await provider().chat({ settings: settings(), messages, onToken: (t) => tokens.push(t) });
    expect(tokens).toEqual(['Hel', 'lo', ' world']);
    expect(result).toMatchObject({ content: 'Hello world', finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 3, totalTokens: 8, source: 'provider' } });
    expect(seen[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(seen[0].headers.accept).toBe('text/event-stream');
  });

  it('estimates usage when the stream carries no usage chunk, and says so', async () => {
    handlers.push((_req, _body, res) => sse(res, [delta('One'), delta(' two', 'length')]));
    const result = await provider().chat({ settings: settings(), messages, onToken: () => undefined });
    expect(result.content).toBe('One two');
    expect(result.finishReason).toBe('length');
    expect(result.usage.source).toBe('estimated');
    expect(result.usage.completionTokens).toBe(2);
    expect(result.usage.promptTokens).toBeGreaterThan(2);
  });

  it('estimates usage of a non-streamed answer without usage', async () => {
    handlers.push((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'a b c' } }] })));
    const result = await provider().chat({ settings: settings(), messages });
    expect(result.usage).toMatchObject({ completionTokens: 3, source: 'estimated' });
  });

  it('retries a 429 (honouring Retry-After) and then succeeds', async () => {
    handlers.push((_req, _body, res) => res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'slow down' } })));
    handlers.push((_req, _body, res) => res.writeHead(503).end('busy'));
    handlers.push((_req, _body, res) => sse(res, [delta('ok', 'stop')]));
    const result = await provider().chat({ settings: settings(), messages, onToken: () => undefined });
    expect(result.content).toBe('ok');
    expect(result.attempts).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it('gives up after the retries with a typed rate-limit error', async () => {
    for (let i = 0; i < 3; i++) handlers.push((_req, _body, res) => res.writeHead(429, { 'retry-after': '0' }).end('{"error":{"message":"quota"}}'));
    const error = await provider({ maxRetries: 2 }).chat({ settings: settings(), messages }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmRateLimitError);
    expect(error.message).toContain('quota');
    expect(seen).toHaveLength(3);
  });

  it('does not retry auth failures and never echoes the key', async () => {
    handlers.push((_req, _body, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } })));
    const error = await provider().chat({ settings: settings(), messages }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('[redacted]');
    expect(seen).toHaveLength(1);
  });

  it('fails a malformed chunk with a bad-response error', async () => {
    handlers.push((_req, _body, res) => sse(res, [delta('fine'), '{not json']));
    const tokens: string[] = [];
    const error = await provider().chat({ settings: settings(), messages, onToken: (t) => tokens.push(t) }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmBadResponseError);
    expect(tokens).toEqual(['fine']);
  });

  it('fails a non-streamed body without choices', async () => {
    handlers.push((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list"}'));
    await expect(provider().chat({ settings: settings(), messages })).rejects.toBeInstanceOf(LlmBadResponseError);
  });

  it('fails a stream that ends before [DONE] without a finish reason', async () => {
    handlers.push((_req, _body, res) => sse(res, [delta('half')], { done: false }));
    await expect(provider().chat({ settings: settings(), messages, onToken: () => undefined })).rejects.toBeInstanceOf(LlmUnavailableError);
  });

  it('times out within the call bound, mid-stream too', async () => {
    handlers.push(() => undefined); // never answers
    const started = Date.now();
    await expect(provider({ timeoutMs: 150, maxRetries: 0 }).chat({ settings: settings(), messages })).rejects.toBeInstanceOf(LlmTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);

    handlers.push((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(delta('slow'))}\n\n`); // then nothing
    });
    const tokens: string[] = [];
    await expect(provider({ timeoutMs: 200, maxRetries: 0 }).chat({ settings: settings(), messages, onToken: (t) => tokens.push(t) })).rejects.toBeInstanceOf(LlmTimeoutError);
    expect(tokens).toEqual(['slow']);
  });

  it('refuses redirects instead of following them', async () => {
    handlers.push((_req, _body, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    await expect(provider().chat({ settings: settings(), messages })).rejects.toBeInstanceOf(LlmTargetRefusedError);
    expect(seen).toHaveLength(1);
  });

  it('refuses loopback unless allowed by LLM_ALLOWED_PRIVATE_HOSTS', async () => {
    const strict = new OpenAiCompatibleProvider(new HttpTransport({ allowPrivate: (h, a) => new PrivateHostAllowlist('').allows(h, a) }), { id: 'openai-compatible' });
    const error = await strict.chat({ settings: settings(), messages }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmTargetRefusedError);
    expect(error.message).toMatch(/loopback.*LLM_ALLOWED_PRIVATE_HOSTS/);
    expect(seen).toHaveLength(0);
  });

  it('embeds through /embeddings, in input order, checking the dimension', async () => {
    handlers.push((_req, body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'nomic-embed-text', data: [{ index: 1, embedding: [0, 1, 0] }, { index: 0, embedding: [1, 0, 0] }], usage: { prompt_tokens: 4, total_tokens: 4 }, echo: body }));
    });
    const transport = new HttpTransport({ allowPrivate: () => true });
    const embedder = new OpenAiCompatibleEmbedder(transport, { id: 'ollama', baseURL, model: 'nomic-embed-text', dimension: 3 });
    const result = await embedder.embed(['first', 'second']);
    expect(result.vectors).toEqual([
      [1, 0, 0],
      [0, 1, 0],
    ]);
    expect(result.usage).toEqual({ promptTokens: 4, source: 'provider' });
    expect(seen[0]).toMatchObject({ path: '/v1/embeddings', body: { model: 'nomic-embed-text', input: ['first', 'second'] } });

    handlers.push((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }] })));
    await expect(embedder.embed(['x'])).rejects.toThrow(/2 dimensions, expected 3/);
  });
});
