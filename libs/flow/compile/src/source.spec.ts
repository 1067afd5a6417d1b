import { jsonErrorOffset, jsonPointer, parseSource, pointerTokens } from './source';

describe('parseSource', () => {
  it('parses YAML and JSON to plain values', () => {
    expect(parseSource('a: 1\nb: [x, y]\n')).toMatchObject({ value: { a: 1, b: ['x', 'y'] }, diagnostics: [], format: 'yaml' });
    expect(parseSource('  {"a": 1, "b": ["x"]}')).toMatchObject({ value: { a: 1, b: ['x'] }, diagnostics: [], format: 'json' });
    expect(parseSource(Buffer.from('\uFEFFa: 1'))).toMatchObject({ value: { a: 1 }, diagnostics: [] });
    expect(parseSource('')).toMatchObject({ value: null, diagnostics: [] });
  });

  it('maps JSON pointers to 1-based positions, falling back to the nearest existing ancestor', () => {
    const text = ['version: "1.0"', 'events:', '  - name: a', '  - name: b', '    entity_type: order', '  - name: c', '    payload:', '      x~y: string', '      a/b: int', ''].join('\n');
    const { map } = parseSource(text);
    expect(map!.position('')).toEqual({ line: 1, column: 1 });
    expect(map!.position('/version')).toEqual({ line: 1, column: 1 });
    expect(map!.position('/events')).toEqual({ line: 2, column: 1 });
    expect(map!.position('/events/1')).toEqual({ line: 4, column: 5 });
    expect(map!.position('/events/1/entity_type')).toEqual({ line: 5, column: 5 });
    // entity_type is missing on events/2: the event itself.
    expect(map!.position('/events/2/entity_type')).toEqual({ line: 6, column: 5 });
    expect(map!.position('/events/2/payload/x~0y')).toEqual({ line: 8, column: 7 });
    expect(map!.position('/events/2/payload/a~1b')).toEqual({ line: 9, column: 7 });
    expect(map!.position('/events/9/name')).toEqual({ line: 2, column: 1 });
    expect(map!.position('/nothing/here')).toEqual({ line: 1, column: 1 });
  });

  it('maps pointers in JSON texts too', () => {
    const { map } = parseSource('{\n  "events": [\n    {"name": "a"},\n    {"name": "b", "action": "x"}\n  ]\n}');
    expect(map!.position('/events/1/action')).toEqual({ line: 4, column: 19 });
    expect(map!.position('/events/0/action')).toEqual({ line: 3, column: 5 });
  });

  it('gives PARSE with line and column for broken YAML', () => {
    const r = parseSource('version: "1.0"\nevents:\n  - name: a\n    topic: [a, b]]\n');
    expect(r.value).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'PARSE', severity: 'error', path: '' });
    expect(r.diagnostics[0].message).toBe('invalid YAML: Unexpected flow-seq-end token in YAML stream: "]"');
    expect(r.diagnostics[0].position).toEqual({ line: 4, column: 18 });
    expect(parseSource('version: "1.0"\ntitle: a: b\n').diagnostics[0].position).toEqual({ line: 2, column: 8 });
    expect(parseSource('a: 1\n\tb: 2\n').diagnostics[0].position).toEqual({ line: 2, column: 1 });
  });

  it('gives PARSE for duplicate YAML keys at the duplicate', () => {
    const r = parseSource('a: 1\nb: 2\na: 3\n');
    expect(r.diagnostics[0]).toMatchObject({ code: 'PARSE', position: { line: 3, column: 1 } });
  });

  it('gives PARSE with line and column for broken JSON', () => {
    const cases: Array<[string, number, number]> = [
      ['{\n  "a": 1\n  "b": 2\n}', 3, 3], // missing comma
      ['{\n  "a": [1, 2,]\n}', 2, 14], // trailing comma
      ['{"a": }', 1, 7], // missing value
      ['{\n  "a": tru\n}', 2, 8], // bad literal
      ['{"a": 1', 1, 8], // unexpected end
      ['[1, 2] x', 1, 8], // trailing text
    ];
    for (const [text, line, column] of cases) {
      const r = parseSource(text);
      expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'PARSE', severity: 'error', path: '', position: { line, column } })]);
      expect(r.diagnostics[0].message).toMatch(/^invalid JSON: /);
    }
  });

  it('reads a JSON-looking text as YAML only when told', () => {
    expect(parseSource('{a: 1}', { format: 'yaml' })).toMatchObject({ value: { a: 1 }, diagnostics: [] });
    expect(parseSource('{a: 1}').diagnostics[0]).toMatchObject({ code: 'PARSE', position: { line: 1, column: 2 } });
  });

  it('refuses texts over the byte limit with TOO_LARGE, counting UTF-8 bytes', () => {
    const text = 'title: ' + 'é'.repeat(10);
    expect(parseSource(text, { maxBytes: 27 }).diagnostics).toEqual([]);
    const r = parseSource(text, { maxBytes: 26 });
    expect(r.value).toBeUndefined();
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'TOO_LARGE', severity: 'error' })]);
  });

  it('refuses alias bombs and invalid UTF-8 as PARSE, never throwing', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]'].join('\n');
    expect(parseSource(bomb, { maxAliases: 20 }).diagnostics[0].code).toBe('PARSE');
    expect(parseSource(new Uint8Array([0x61, 0x3a, 0x20, 0xff])).diagnostics[0].code).toBe('PARSE');
  });
});

describe('JSON pointers', () => {
  it('escapes and unescapes tokens', () => {
    expect(jsonPointer('a/b', 'x~y', 0)).toBe('/a~1b/x~0y/0');
    expect(pointerTokens('/a~1b/x~0y/0')).toEqual(['a/b', 'x~y', '0']);
    expect(pointerTokens('')).toEqual([]);
  });

  it('jsonErrorOffset is the text length for valid JSON', () => {
    expect(jsonErrorOffset('{"a": [1, -2.5e3, true, null, "\\u00e9"]}')).toBe(40);
  });
});
