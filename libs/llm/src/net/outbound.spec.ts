import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmTargetRefusedError } from '../errors';
import { HttpTransport } from '../providers/http-transport';
import { OpenAiCompatibleProvider } from '../providers/openai-compatible.provider';
import { OutboundTargetRefusedError, parseOutboundUrl, PrivateHostAllowlist, type ResolveAll, resolvePinned } from './outbound';

const nobody = new PrivateHostAllowlist('');
const strict = { allowPrivate: (h: string, a: string) => nobody.allows(h, a) };

/** The host `parseOutboundUrl` + `resolvePinned` judge for a URL, or the refusal. */
async function judge(url: string, resolve?: ResolveAll): Promise<string> {
  try {
    const parsed = parseOutboundUrl(url);
    return (await resolvePinned(parsed.hostname, { ...strict, resolve })).address;
  } catch (e) {
    if (e instanceof OutboundTargetRefusedError) return `refused: ${e.message}`;
    throw e;
  }
}

describe('outbound address policy (SSRF)', () => {
  it.each([
    ['decimal IPv4', 'http://2130706433/v1'],
    ['octal IPv4', 'http://0177.0.0.1/v1'],
    ['hex IPv4', 'http://0x7f.0.0.1/v1'],
    ['short IPv4', 'http://127.1/v1'],
    ['IPv6 loopback', 'http://[::1]/v1'],
    ['IPv6-mapped IPv4 loopback', 'http://[::ffff:127.0.0.1]/v1'],
    ['IPv6-mapped IPv4 metadata', 'http://[::ffff:a9fe:a9fe]/latest'],
    ['link-local metadata', 'http://169.254.169.254/latest/meta-data'],
    ['private 10/8', 'https://10.1.2.3/v1'],
    ['unspecified', 'http://0.0.0.0/v1'],
    ['decimal private', 'http://167772161/v1'],
  ])('refuses %s', async (_name, url) => {
    expect(await judge(url)).toMatch(/^refused: /);
  });

  it.each([
    ['credentials before a loopback host', 'http://api.openai.com@127.0.0.1/v1'],
    ['credentials that look like a host', 'https://user:pass@api.openai.com/v1'],
    ['a non-http scheme', 'file:///etc/passwd'],
    ['garbage', 'not a url'],
  ])('refuses %s before any lookup', async (_name, url) => {
    const resolve = jest.fn<ReturnType<ResolveAll>, Parameters<ResolveAll>>();
    expect(await judge(url, resolve)).toMatch(/^refused: /);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('judges a host by every address it resolves to (one private record refuses it)', async () => {
    const resolve: ResolveAll = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    expect(await judge('https://rebind.example/v1', resolve)).toMatch(/refused: refused rebind.example: 10.0.0.7 is a private address/);
    expect(await judge('https://public.example/v1', async () => [{ address: '93.184.216.34', family: 4 }])).toBe('93.184.216.34');
  });

  it('LLM_ALLOWED_PRIVATE_HOSTS admits names, addresses and ranges, nothing else', () => {
    const list = new PrivateHostAllowlist('localhost, ollama 10.0.0.0/8\n::1');
    expect(list.allows('localhost', '127.0.0.1')).toBe(true);
    expect(list.allows('ollama', '172.18.0.5')).toBe(true);
    expect(list.allows('gpu-box', '10.20.30.40')).toBe(true);
    expect(list.allows('x', '::ffff:10.1.1.1')).toBe(true);
    expect(list.allows('x', '::1')).toBe(true);
    expect(list.allows('x', '127.0.0.1')).toBe(false);
    expect(list.allows('169.254.169.254', '169.254.169.254')).toBe(false);
    expect(new PrivateHostAllowlist('*').allows('any', '169.254.169.254')).toBe(true);
    expect(new PrivateHostAllowlist('').empty).toBe(true);
  });

  it('connects to the address that passed the check, not to a second DNS answer', async () => {
    const hosts: string[] = [];
    const server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'pinned' } }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      let lookups = 0;
      // First answer loopback (allowed by name), any later answer a metadata address: only the first may be used.
      const resolve: ResolveAll = async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }]);
      const allow = new PrivateHostAllowlist('model.internal');
      const provider = new OpenAiCompatibleProvider(new HttpTransport({ allowPrivate: (h, a) => allow.allows(h, a) && a === '127.0.0.1', resolve }), { id: 'openai-compatible' });
      const result = await provider.chat({ settings: { providerID: 'openai-compatible', baseURL: `http://model.internal:${port}/v1`, model: 'm' }, messages: [{ role: 'user', content: 'hi' }] });
      expect(result.content).toBe('pinned');
      expect(hosts).toEqual([`model.internal:${port}`]);
      expect(lookups).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('refuses a provider base URL with credentials or a private target as a typed LLM error', async () => {
    const provider = new OpenAiCompatibleProvider(new HttpTransport(strict), { id: 'openai-compatible' });
    const call = (baseURL: string) => provider.chat({ settings: { providerID: 'openai-compatible', baseURL, model: 'm' }, messages: [{ role: 'user', content: 'hi' }] });
    await expect(call('http://evil.example@127.0.0.1:1/v1')).rejects.toBeInstanceOf(LlmTargetRefusedError);
    await expect(call('http://[::ffff:7f00:1]:1/v1')).rejects.toBeInstanceOf(LlmTargetRefusedError);
    await expect(call('http://2130706433:1/v1')).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
  });
});
