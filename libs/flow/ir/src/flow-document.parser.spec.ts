import { DEFAULT_MAX_DOCUMENT_BYTES, FlowDocumentParseError, parseFlowDocumentText, stringifyFlowDocumentText } from './flow-document.parser';
import { FLOW_ISSUE_CODES as C } from './flow-issue.codes';

function parseError(fn: () => unknown): FlowDocumentParseError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FlowDocumentParseError);
    return e as FlowDocumentParseError;
  }
  throw new Error('expected a FlowDocumentParseError');
}

const yamlDoc = `
flowdef: "1.0"
info:
  title: Echo
nodes:
  start: {kind: source}
edges: []
`;

describe('parseFlowDocumentText', () => {
  describe('formats', () => {
    it('parses YAML when no content type is given', () => {
      expect(parseFlowDocumentText(yamlDoc)).toEqual({ flowdef: '1.0', info: { title: 'Echo' }, nodes: { start: { kind: 'source' } }, edges: [] });
    });

    it.each(['application/yaml', 'application/x-yaml', 'text/yaml; charset=utf-8', 'text/plain'])('parses YAML for %s', (type) => {
      expect(parseFlowDocumentText('a: 1\nb: [x, y]\n', type)).toEqual({ a: 1, b: ['x', 'y'] });
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'application/vnd.flow+json', 'APPLICATION/JSON'])('parses strict JSON for %s', (type) => {
      expect(parseFlowDocumentText('{"nodes": [], "edges": []}', type)).toEqual({ nodes: [], edges: [] });
      expect(parseError(() => parseFlowDocumentText('nodes: []', type)).code).toBe(C.INVALID_JSON);
    });

    it('reads JSON sent as YAML (YAML 1.2 is a superset)', () => {
      expect(parseFlowDocumentText('{"nodes": [{"id": "a"}], "edges": []}')).toEqual({ nodes: [{ id: 'a' }], edges: [] });
    });

    it('uses the YAML 1.2 core schema: yes/no and dates stay strings, unquoted 1.0 is a number', () => {
      expect(parseFlowDocumentText('a: yes\nb: 2024-01-02\nc: 1.0\nd: ~\n')).toEqual({ a: 'yes', b: '2024-01-02', c: 1, d: null });
    });

    it('accepts bytes and strips a byte order mark', () => {
      expect(parseFlowDocumentText(new TextEncoder().encode('\uFEFF{"a": "é"}'), 'application/json')).toEqual({ a: 'é' });
      expect(parseFlowDocumentText('\uFEFF{"a": 1}', 'application/json')).toEqual({ a: 1 });
    });

    it('keeps a __proto__ key as data without touching the prototype', () => {
      for (const [text, type] of [['__proto__: {polluted: true}\n', undefined], ['{"__proto__": {"polluted": true}}', 'application/json']] as const) {
        const doc = parseFlowDocumentText(text, type);
        expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
        expect(Object.keys(doc)).toEqual(['__proto__']);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }
    });
  });

  describe('a body that is not a mapping', () => {
    it.each([
      ['a YAML list', '- a\n- b\n', undefined, /not a list/],
      ['a YAML scalar', 'just text\n', undefined, /not a string/],
      ['a YAML number', '42', 'application/yaml', /not a number/],
      ['an empty body', '', undefined, /empty document/],
      ['a comment only', '# nothing here\n', undefined, /empty document/],
      ['a JSON list', '[{"id": "a"}]', 'application/json', /not a list/],
      ['JSON null', 'null', 'application/json', /empty document/],
    ])('refuses %s with NOT_A_MAPPING', (_name, text, type, message) => {
      const e = parseError(() => parseFlowDocumentText(text, type));
      expect(e.code).toBe(C.NOT_A_MAPPING);
      expect(e.message).toMatch(/must be a mapping/);
      expect(e.message).toMatch(message);
    });
  });

  describe('syntax errors', () => {
    it('reports invalid YAML with its line and column', () => {
      const e = parseError(() => parseFlowDocumentText('nodes:\n  - id: a\n    kind: [start\n'));
      expect(e.code).toBe(C.INVALID_YAML);
      expect(e.line).toBeGreaterThanOrEqual(3);
      expect(e.message).toMatch(/^invalid YAML at line \d+, column \d+: /);
      expect(e.message).not.toContain('\n');
    });

    it('refuses duplicate keys instead of keeping the last one', () => {
      const e = parseError(() => parseFlowDocumentText('name: a\nname: b\n'));
      expect(e.code).toBe(C.INVALID_YAML);
      expect(e.message).toMatch(/line 2, column 1: Map keys must be unique/);
      expect([e.line, e.column]).toEqual([2, 1]);
    });

    it('refuses a stream of several documents', () => {
      expect(parseError(() => parseFlowDocumentText('a: 1\n---\nb: 2\n')).code).toBe(C.INVALID_YAML);
    });

    it('refuses values JSON cannot carry, with their path', () => {
      const e = parseError(() => parseFlowDocumentText('meta:\n  positions:\n    a: {x: .inf, y: 0}\n'));
      expect(e.code).toBe(C.INVALID_YAML);
      expect(e.path).toBe('/meta/positions/a/x');
      expect(e.message).toMatch(/Infinity/);
      expect(parseError(() => parseFlowDocumentText('a: [.nan]\n')).path).toBe('/a/0');
    });

    it('refuses an alias bomb', () => {
      const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
      expect(parseError(() => parseFlowDocumentText(lines.join('\n'))).code).toBe(C.INVALID_YAML);
    });

    it('reports invalid JSON with its position when the engine gives one', () => {
      const e = parseError(() => parseFlowDocumentText('{\n  "a": 1,\n  }', 'application/json'));
      expect(e.code).toBe(C.INVALID_JSON);
      expect(e.message).toMatch(/^invalid JSON/);
      const positioned = parseError(() => parseFlowDocumentText('{"a": 1}\nx', 'application/json'));
      expect([positioned.line, positioned.column]).toEqual([2, 1]);
    });

    it('refuses bytes that are not UTF-8', () => {
      expect(parseError(() => parseFlowDocumentText(new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe]))).code).toBe(C.INVALID_ENCODING);
    });

    it('turns into a validation issue for a 400 body', () => {
      const e = parseError(() => parseFlowDocumentText('[]'));
      expect(e.toIssue()).toEqual({ path: '', code: C.NOT_A_MAPPING, severity: 'error', message: e.message });
    });
  });

  describe('size guard', () => {
    it('defaults to 1 MiB, counted in UTF-8 bytes before parsing', () => {
      expect(DEFAULT_MAX_DOCUMENT_BYTES).toBe(1048576);
      const atLimit = `a: "${'x'.repeat(DEFAULT_MAX_DOCUMENT_BYTES - 6)}"\n`;
      expect(Buffer.byteLength(atLimit)).toBe(DEFAULT_MAX_DOCUMENT_BYTES);
      expect(parseFlowDocumentText(atLimit).a).toHaveLength(DEFAULT_MAX_DOCUMENT_BYTES - 6);
      const e = parseError(() => parseFlowDocumentText(atLimit + ' '));
      expect(e.code).toBe(C.TOO_LARGE);
      expect(e.message).toContain(`at most ${DEFAULT_MAX_DOCUMENT_BYTES}`);
    });

    it('honours maxBytes and counts multi-byte characters as bytes', () => {
      expect(parseFlowDocumentText('a: éé', undefined, { maxBytes: 7 })).toEqual({ a: 'éé' });
      expect(parseError(() => parseFlowDocumentText('a: ééé', undefined, { maxBytes: 7 })).code).toBe(C.TOO_LARGE);
      expect(parseError(() => parseFlowDocumentText(new Uint8Array(8).fill(0x61), undefined, { maxBytes: 7 })).code).toBe(C.TOO_LARGE);
    });

    it('checks the size before the syntax', () => {
      expect(parseError(() => parseFlowDocumentText('{{{{', 'application/json', { maxBytes: 2 })).code).toBe(C.TOO_LARGE);
    });
  });

  describe('stringifyFlowDocumentText', () => {
    const doc = { flowdef: '1.0', info: { title: 'yes' }, nodes: { '1': { kind: 'source', 'x-config': { n: -0.5, s: '0123', long: 'x'.repeat(200), nl: 'a\nb' } } }, edges: [] };

    it.each(['json', 'yaml'] as const)('writes %s that parses back to the same document', (format) => {
      const text = stringifyFlowDocumentText(doc, format);
      expect(parseFlowDocumentText(text, format === 'json' ? 'application/json' : 'application/yaml')).toEqual(doc);
    });

    it('writes shared objects in full rather than as YAML aliases', () => {
      const shared = { x: 1, y: 2 };
      expect(stringifyFlowDocumentText({ a: shared, b: shared }, 'yaml')).not.toMatch(/[&*]/);
    });
  });
});
