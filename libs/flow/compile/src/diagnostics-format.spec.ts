import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { DIAGNOSTIC_CODES } from './codes';
import { fileUri, formatDiagnostics, formatJson, formatSarif, formatText, toSarif } from './diagnostics-format';
import { parseFormAText } from './form-a';
import type { Diagnostic } from './model';
import { compileModel } from './modules-order';
import { parseSource } from './source';

// The official OASIS SARIF 2.1.0 schema (errata 01, JSON Schema draft-04), kept as a fixture so the
// test runs offline. Draft-04 needs Ajv's draft-04 class.
const SCHEMA_FILE = join(__dirname, '../test/fixtures/sarif-schema-2.1.0.json');

const diagnostics: Diagnostic[] = [
  { code: 'FDL010', severity: 'error', message: 'event "e" has no entity_type', path: '/events/0/entity_type', position: { line: 3, column: 5 } },
  { code: 'FDL002', severity: 'warning', message: 'version is empty', path: '/version' },
  { code: 'PARSE', severity: 'error', message: 'invalid YAML: x', path: '' },
];

describe('formatText', () => {
  it('writes one line per diagnostic and a summary', () => {
    expect(formatText(diagnostics, { file: 'flows/order.flow.yaml' })).toBe(
      [
        'flows/order.flow.yaml:3:5: error FDL010 event "e" has no entity_type (/events/0/entity_type)',
        'flows/order.flow.yaml: warning FDL002 version is empty (/version)',
        'flows/order.flow.yaml: error PARSE invalid YAML: x',
        '2 errors, 1 warning',
        '',
      ].join('\n'),
    );
    expect(formatText([])).toBe('0 errors, 0 warnings\n');
  });
});

describe('formatJson', () => {
  it('carries the file, a summary and the diagnostics', () => {
    expect(JSON.parse(formatJson(diagnostics, { file: 'a.yaml' }))).toEqual({ file: 'a.yaml', summary: { errors: 2, warnings: 1 }, diagnostics });
    expect(formatDiagnostics(diagnostics, 'json', { file: 'a.yaml' })).toBe(formatJson(diagnostics, { file: 'a.yaml' }));
  });
});

describe('SARIF 2.1.0', () => {
  function validator() {
    expect(existsSync(SCHEMA_FILE)).toBe(true);
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const ajv = new Ajv({ allErrors: true });
    addFormats(ajv);
    return ajv.compile(schema);
  }

  it('is valid against the official schema, with rules for every code', () => {
    const validate = validator();
    const log = toSarif(diagnostics, { file: 'flows/order service.flow.yaml', toolVersion: '0.1.0' });
    expect(validate(log)).toBe(true);
    expect(validate.errors ?? []).toEqual([]);
    const run = (log.runs as any[])[0];
    expect(run.tool.driver.name).toBe('flowctl');
    expect(run.tool.driver.rules.map((r: any) => r.id)).toEqual(Object.keys(DIAGNOSTIC_CODES));
    for (const rule of run.tool.driver.rules) {
      expect(rule.shortDescription.text).toBe(DIAGNOSTIC_CODES[rule.id].rule);
      expect(rule.defaultConfiguration.level).toBe(DIAGNOSTIC_CODES[rule.id].severity);
    }
    expect(run.results[0]).toEqual({
      ruleId: 'FDL010',
      ruleIndex: Object.keys(DIAGNOSTIC_CODES).indexOf('FDL010'),
      level: 'error',
      message: { text: 'event "e" has no entity_type' },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: 'flows/order%20service.flow.yaml' }, region: { startLine: 3, startColumn: 5 } },
          logicalLocations: [{ name: 'entity_type', fullyQualifiedName: '/events/0/entity_type', kind: 'property' }],
        },
      ],
      properties: { jsonPointer: '/events/0/entity_type' },
    });
    expect(run.results[1].locations[0].physicalLocation.region).toBeUndefined();
    expect(run.results[2].locations[0].logicalLocations[0]).toEqual({ name: '', fullyQualifiedName: '/', kind: 'object' });
  });

  it('adds rules for codes of other readers, and validates for a real compile', () => {
    const validate = validator();
    const text = 'modules:\n  - name: a\n    depends_on: [a]\nevents:\n  - name: e\n';
    const { model } = parseFormAText(text);
    const found = compileModel(model, { map: parseSource(text).map }).diagnostics;
    const extra: Diagnostic = { code: 'OAS001', severity: 'warning', message: 'other reader', path: '/paths/~1orders' };
    const log = JSON.parse(formatSarif([...found, extra], { file: '/abs/dir/order.flow.yaml' }));
    expect(validate(log)).toBe(true);
    const run = log.runs[0];
    expect(run.results.map((r: any) => r.ruleId)).toEqual(['FDL002', 'FDL010', 'FDL011', 'CYCLE', 'OAS001']);
    expect(run.tool.driver.rules.at(-1)).toEqual({ id: 'OAS001', shortDescription: { text: 'OAS001' }, defaultConfiguration: { level: 'warning' } });
    expect(run.results[3].locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'file:///abs/dir/order.flow.yaml' }, region: { startLine: 3, startColumn: 5 } });
  });

  it('the schema check can fail: a broken log is refused', () => {
    const validate = validator();
    const log = toSarif(diagnostics) as any;
    log.runs[0].results[0].level = 'fatal';
    expect(validate(log)).toBe(false);
    delete log.version;
    expect(validate(log)).toBe(false);
  });

  it('turns file names into URI references', () => {
    expect(fileUri('a/b c.yaml')).toBe('a/b%20c.yaml');
    expect(fileUri('C:\\x\\y.yaml')).toBe('file:///C:/x/y.yaml');
    expect(fileUri('file:///x.yaml')).toBe('file:///x.yaml');
  });
});
