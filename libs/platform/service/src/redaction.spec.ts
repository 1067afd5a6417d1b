import pino from 'pino';
import { Writable } from 'node:stream';
import { loggerRedactPaths, redactUrl } from './redaction';

describe('log redaction', () => {
  it('masks credentials in headers and in secret-looking fields', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(chunk.toString()), cb()) });
    const log = pino({ redact: { paths: loggerRedactPaths, censor: '[redacted]' } }, sink);
    log.info({ req: { headers: { authorization: 'Bearer eyJabc', cookie: 'sid=1', accept: 'json' } }, profile: { apiKey: 'sk-live-123', name: 'p' } }, 'hello');
    const out = lines.join('');
    expect(out).not.toContain('eyJabc');
    expect(out).not.toContain('sk-live-123');
    expect(out).not.toContain('sid=1');
    expect(JSON.parse(out)).toMatchObject({ req: { headers: { authorization: '[redacted]', accept: 'json' } }, profile: { apiKey: '[redacted]', name: 'p' } });
  });

  it('masks tokens passed in the query string', () => {
    expect(redactUrl('/ws/connect?room=a&token=eyJabc.def&x=1')).toBe('/ws/connect?room=a&token=[redacted]&x=1');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });
});
