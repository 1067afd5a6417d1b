import { isJsonContentType, JsonDepthScanner, jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

const nested = (levels: number, open = '[', close = ']'): string => open.repeat(levels) + close.repeat(levels);

describe('jsonDepthExceeds', () => {
  it('accepts flat and moderately nested documents', () => {
    expect(jsonDepthExceeds(Buffer.from('{"a":1,"b":[1,2,{"c":null}]}'), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(nested(64)), 64)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('"just a string"'), 0)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(''), 1)).toBe(false);
  });

  it('refuses nesting one level past the limit, objects and arrays alike', () => {
    expect(jsonDepthExceeds(Buffer.from(nested(65)), 64)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from('{"a":'.repeat(65) + '1' + '}'.repeat(65)), 64)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from('[{"a":[{"b":[1]}]}]'), 4)).toBe(true);
  });

  it('defaults to 64 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(jsonDepthExceeds(Buffer.from(nested(64)))).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(nested(65)))).toBe(true);
  });

  it('scans 100,000 levels without overflowing the stack', () => {
    expect(jsonDepthExceeds(Buffer.from(nested(100_000)), 64)).toBe(true);
  });

  it('counts siblings by depth, not by total number of brackets', () => {
    expect(jsonDepthExceeds(Buffer.from(`[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`), 3)).toBe(false);
  });

  it('ignores brackets inside strings, including escaped quotes and backslashes', () => {
    const inString = JSON.stringify({ s: '[[[[{{{{' + '"'.repeat(3) + '\\' + '[[[[' });
    expect(jsonDepthExceeds(Buffer.from(inString), 1)).toBe(false);
    // an escaped backslash ends before the quote, so the quote closes the string
    expect(jsonDepthExceeds(Buffer.from('["\\\\", [[1]]]'), 2)).toBe(true);
    // \u escapes never hide a quote
    expect(jsonDepthExceeds(Buffer.from('["\\u0022[[[[", 1]'), 1)).toBe(false);
  });

  it('handles multi-byte UTF-8 inside strings', () => {
    expect(jsonDepthExceeds(Buffer.from(JSON.stringify({ k: 'é€😀[[[' })), 1)).toBe(false);
  });

  it('accepts a string input', () => {
    expect(jsonDepthExceeds(nested(3), 2)).toBe(true);
  });
});

describe('JsonDepthScanner', () => {
  it('keeps string and escape state across chunk boundaries', () => {
    const text = Buffer.from('{"a":"x\\"[[[[","b":' + nested(5) + '}');
    for (let cut = 1; cut < text.length; cut++) {
      const scanner = new JsonDepthScanner(6);
      scanner.push(text.subarray(0, cut));
      expect(scanner.push(text.subarray(cut))).toBe(false);
      const strict = new JsonDepthScanner(5);
      strict.push(text.subarray(0, cut));
      expect(strict.push(text.subarray(cut))).toBe(true);
    }
  });

  it('stays exceeded once the limit was passed', () => {
    const scanner = new JsonDepthScanner(1);
    expect(scanner.push(Buffer.from('[['))).toBe(true);
    expect(scanner.push(Buffer.from(']]'))).toBe(true);
    expect(scanner.exceeded).toBe(true);
  });
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/merge-patch+json', true],
    ['application/vnd.api+json;charset=utf-8', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    [undefined, false],
  ])('%s -> %s', (type, expected) => {
    expect(isJsonContentType(type)).toBe(expected);
  });
});
