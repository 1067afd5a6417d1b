import type { IncomingMessage, ServerResponse } from 'node:http';
import { toErrorBody } from './all-exceptions.filter';
import { jsonBodyVerifier, pathEncodingGuard, type RequestRefusedError } from './request-guards';

const verify = jsonBodyVerifier(64);
const run = (body: string | Buffer, encoding: string | null = 'utf-8') => () => verify({} as IncomingMessage, {} as ServerResponse, Buffer.isBuffer(body) ? body : Buffer.from(body), encoding as string);
const nested = (n: number) => `{"a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
const thrown = (fn: () => void): RequestRefusedError => {
  try {
    fn();
  } catch (e) {
    return e as RequestRefusedError;
  }
  throw new Error('did not throw');
};

describe('jsonBodyVerifier', () => {
  it('accepts JSON nested exactly 64 levels and refuses 65 with 400 JSON_TOO_DEEP', () => {
    expect(run(nested(64))).not.toThrow();
    expect(thrown(run(nested(65)))).toMatchObject({ status: 400, code: 'JSON_TOO_DEEP', expose: true });
    // Brackets inside strings do not count.
    expect(run(`{"a":"${'['.repeat(500)}"}`)).not.toThrow();
  });

  it('refuses bytes that are not UTF-8 with 400 INVALID_UTF8, and accepts multi-byte text', () => {
    expect(thrown(run(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])))).toMatchObject({ status: 400, code: 'INVALID_UTF8' });
    // An overlong encoding of "/" and a lone surrogate are not UTF-8 either.
    expect(thrown(run(Buffer.from([0x22, 0xc0, 0xaf, 0x22])))).toMatchObject({ code: 'INVALID_UTF8' });
    expect(thrown(run(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])))).toMatchObject({ code: 'INVALID_UTF8' });
    expect(run('{"name":"Zoë 日本 🚀"}')).not.toThrow();
  });

  it('refuses JSON in another charset with 415 rather than skipping the checks', () => {
    expect(thrown(run('{}', 'utf-16le'))).toMatchObject({ status: 415, code: 'UNSUPPORTED_CHARSET' });
    expect(run('{}', 'UTF8')).not.toThrow();
    expect(run('{}', null)).not.toThrow();
  });

  it('becomes the standard error body with its code (no request body echoed)', () => {
    const err = thrown(run(nested(100)));
    // body-parser adds the raw body to the error; it must not reach the response.
    Object.assign(err, { body: nested(100) });
    expect(toErrorBody(err)).toEqual({ statusCode: 400, error: 'Bad Request', code: 'JSON_TOO_DEEP', message: expect.stringContaining('64 levels') });
  });
});

describe('toErrorBody codes of errors raised before Nest', () => {
  it('names the line and column of a JSON syntax error, never the body itself', () => {
    const err = Object.assign(new Error('x'), { type: 'entity.parse.failed', status: 400, expose: true, body: '{\n  "a": "secret",\n  "b": \n}' });
    expect(toErrorBody(err)).toEqual({ statusCode: 400, error: 'Bad Request', code: 'INVALID_JSON', message: 'request body is not valid JSON at line 4, column 1' });
  });

  it('gives body-parser and path-decoding errors a code', () => {
    expect(toErrorBody(Object.assign(new Error('x'), { type: 'entity.parse.failed', status: 400, expose: true }))).toMatchObject({ statusCode: 400, code: 'INVALID_JSON' });
    expect(toErrorBody(Object.assign(new Error('x'), { type: 'entity.too.large', status: 413, expose: true }))).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(toErrorBody(Object.assign(new Error('x'), { type: 'charset.unsupported', status: 415, expose: true }))).toMatchObject({ statusCode: 415, code: 'UNSUPPORTED_CHARSET' });
    expect(toErrorBody(Object.assign(new URIError("Failed to decode param '%ff'"), { status: 400, statusCode: 400 }))).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'INVALID_PATH_ENCODING',
      message: 'the request path has an invalid percent-encoding',
    });
    expect(toErrorBody(Object.assign(new Error('nope'), { status: 409, expose: true }))).toMatchObject({ statusCode: 409, code: 'CONFLICT' });
  });
});

describe('pathEncodingGuard', () => {
  const guard = (url: string) => {
    let passed: unknown = 'not called';
    pathEncodingGuard({ url } as IncomingMessage, {} as ServerResponse, (err?: unknown) => (passed = err));
    return passed as RequestRefusedError | undefined;
  };

  it('refuses a path with an invalid percent-encoding with 400 INVALID_PATH_ENCODING', () => {
    for (const url of ['/api/v1/flows/%ff', '/api/v1/runs/%E0%A4%A', '/%', '/a%zz/b']) expect(guard(url)).toMatchObject({ status: 400, code: 'INVALID_PATH_ENCODING' });
  });

  it('lets valid encodings through and ignores the query string', () => {
    for (const url of ['/api/v1/flows/a%20b', '/api/v1/flows/%E2%82%AC', '/api/v1/flows?q=%ff', '/plain']) expect(guard(url)).toBeUndefined();
  });
});
