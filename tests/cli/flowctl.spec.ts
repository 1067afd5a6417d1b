import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser as AsyncApiParser } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';
import { SecretsKeyring } from '@flowplane/platform/config';
import { createEmbeddedStore } from '@flowplane/platform/store';

/**
 * flowctl as users run it: the real binary (dist/, built by `npm test`), on the fixtures, checking
 * output and exit codes (0 fine, 1 document errors, 2 usage errors).
 */

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/apps/cli/src/flowctl.js');
const fixture = path.join(root, 'libs/flow/compile/test/fixtures/order-service.flow.yaml');

function flowctl(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('flowctl', () => {
  let dir: string;

  beforeAll(() => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    dir = mkdtempSync(path.join(tmpdir(), 'flowctl-'));
  });

  it('exports OpenAPI that a real OpenAPI validator accepts', async () => {
    const out = path.join(dir, 'openapi.json');
    const r = flowctl(['export', fixture, '--format', 'openapi', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.openapi).toBe('3.0.3');
    await expect(SwaggerParser.validate(doc)).resolves.toBeDefined();
  });

  it('exports AsyncAPI 2.6 YAML to stdout that @asyncapi/parser accepts', async () => {
    const r = flowctl(['export', fixture, '--format', 'asyncapi']);
    expect(r.code).toBe(0);
    expect(parseYaml(r.stdout).asyncapi).toBe('2.6.0');
    const diagnostics = await new AsyncApiParser().validate(r.stdout);
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  });

  it('exports flowdef, flowgraph, businessmodel, json and yaml', () => {
    for (const format of ['flowdef', 'flowgraph', 'businessmodel', 'json', 'yaml']) {
      const r = flowctl(['export', fixture, '--format', format]);
      expect({ format, code: r.code }).toEqual({ format, code: 0 });
      expect(r.stdout.length).toBeGreaterThan(100);
    }
    expect(parseYaml(flowctl(['export', fixture, '--format', 'flowgraph']).stdout).flowdef).toBe('1.0');
    expect(JSON.parse(flowctl(['export', fixture, '--format', 'json']).stdout).title).toBe('Order Service');
  });

  it('validates: exit 0 on a clean file, 1 on errors, warnings fail only with --strict', () => {
    const clean = flowctl(['validate', fixture]);
    expect(clean.code).toBe(0);
    // The sample's action get_order and its entity order's lookup tool share a name: TOOL_NAME says so.
    expect(clean.stdout).toContain('0 errors, 1 warning');
    expect(clean.stdout).toContain('warning TOOL_NAME tool name "get_order" (from "get_order") is already used; renamed to "get_order_2"');

    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, 'version: "1.0"\nevents:\n  - name: order_placed\n    action: placed\n');
    const bad = flowctl(['validate', broken]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/broken\.yaml:3:\d+: error FDL010 .*entity_type.* \(\/events\/0(\/entity_type)?\)/);

    const warned = path.join(dir, 'warned.yaml');
    writeFileSync(warned, 'version: "1.0"\nchannels:\n  - name: orders\n    protocol: carrier-pigeon\n');
    expect(flowctl(['validate', warned]).code).toBe(0);
    const strict = flowctl(['validate', warned, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('FDL050');
  });

  it('warns about a form A version it does not read, naming the ones it reads; --strict then fails', () => {
    for (const version of ['"2.0"', '"1.1"', '"1.0.0"']) {
      const file = path.join(dir, 'versioned.yaml');
      writeFileSync(file, `version: ${version}\ntitle: t\n`);
      const lax = flowctl(['validate', file]);
      expect({ version, code: lax.code }).toEqual({ version, code: 0 });
      expect(lax.stdout).toContain(`warning UNSUPPORTED_VERSION version ${version} is not one this converter reads (it reads "1.0")`);
      const strict = flowctl(['validate', file, '--strict']);
      expect({ version, code: strict.code }).toEqual({ version, code: 1 });
    }
    const current = path.join(dir, 'current.yaml');
    writeFileSync(current, 'version: "1.0"\ntitle: t\n');
    expect(flowctl(['validate', current, '--strict']).code).toBe(0);
  });

  it('validate fails (exit 1) on documents that would compile to broken output, naming each problem', () => {
    const file = path.join(dir, 'model-errors.yaml');
    writeFileSync(
      file,
      [
        'version: "1.0"',
        'modules:',
        '  - name: billing',
        '  - name: billing',
        'entities:',
        '  - name: invoice',
        '    fields:',
        '      total: decimal',
        '      state: { type: enum, enum: [] }',
        'actions:',
        '  - name: pay',
        '    method: FETCH',
        '    path: invoices/{id}/pay',
        '    emits: [invoice.paid]',
        'workflows:',
        '  - name: dun',
        '    triggers: [invoice.overdue]',
        '    steps: [{ id: s, action: pay }]',
        'schedules:',
        '  - name: nightly',
        '    cron: "0 0 * *"',
        '    action: pay',
        '',
      ].join('\n'),
    );
    const r = flowctl(['validate', file, '--format', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; severity: string; path: string }> };
    expect(report.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.path])).toEqual(
      expect.arrayContaining([
        ['DUPLICATE_NAME', '/modules/1/name'],
        ['FIELD_TYPE', '/entities/0/fields/total/type'],
        ['EMPTY_ENUM', '/entities/0/fields/state/enum'],
        ['HTTP_METHOD', '/actions/0/method'],
        ['HTTP_PATH', '/actions/0/path'],
        ['UNKNOWN_EVENT', '/actions/0/emits/0'],
        ['UNKNOWN_EVENT', '/workflows/0/triggers/0'],
        ['CRON', '/schedules/0/cron'],
      ]),
    );
    const text = flowctl(['validate', file]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/model-errors\.yaml:12:\d+: error HTTP_METHOD /);
  });

  it('validate flags form B graphs with unknown node kinds, delivery modes and nodes (exit 1), and renamed tools', () => {
    const file = path.join(dir, 'graph.yaml');
    writeFileSync(file, 'flowdef: "1.0"\ninfo: { title: g }\nnodes:\n  in: { kind: source }\n  go: { kind: teleport }\nedges:\n  - { from: in, to: go, delivery: { mode: pigeon } }\n  - { from: go, to: nowhere }\n');
    const r = flowctl(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/graph\.yaml:5:\d+: error NODE_KIND /);
    expect(r.stdout).toMatch(/graph\.yaml:7:\d+: error DELIVERY_MODE /);
    expect(r.stdout).toMatch(/graph\.yaml:8:\d+: error UNKNOWN_NODE /);

    const tools = path.join(dir, 'tools.yaml');
    writeFileSync(tools, 'version: "1.0"\nactions:\n  - name: place order\n');
    const renamed = flowctl(['validate', tools]);
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toMatch(/tools\.yaml:3:\d+: warning TOOL_NAME .*renamed to "place_order"/);
  });

  it('writes SARIF 2.1.0 and JSON reports', () => {
    const broken = path.join(dir, 'broken2.yaml');
    writeFileSync(broken, 'version: ""\nworkflows:\n  - name: w\n    steps:\n      - kind: end\n');
    const sarif = flowctl(['validate', broken, '--format', 'sarif']);
    expect(sarif.code).toBe(1);
    const log = JSON.parse(sarif.stdout);
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0].tool.driver.name).toBe('flowctl');
    expect(log.runs[0].results.map((r: { ruleId: string }) => r.ruleId).sort()).toEqual(['FDL002', 'FDL020']);
    const json = JSON.parse(flowctl(['validate', broken, '--format', 'json']).stdout);
    expect(json.summary).toEqual({ errors: 1, warnings: 1 });
  });

  it('reports unparseable YAML with its line and column, never a crash', () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'version: "1.0"\nevents:\n  - name: [unclosed\n');
    const r = flowctl(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/bad\.yaml:\d+:\d+: error PARSE /);
    expect(r.stderr).toBe('');
  });

  it('exports tool definitions, by selection', () => {
    const all = flowctl(['tools', fixture]);
    expect(all.code).toBe(0);
    const tools = JSON.parse(all.stdout) as Array<{ type: string; function: { name: string; parameters: { type: string } } }>;
    expect(tools.length).toBeGreaterThan(3);
    for (const t of tools) {
      expect(t.type).toBe('function');
      expect(t.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(t.function.parameters.type).toBe('object');
    }
    const entities = JSON.parse(flowctl(['tools', fixture, '--select', 'entities']).stdout) as typeof tools;
    expect(entities.every((t) => t.function.name.startsWith('get_'))).toBe(true);
    const commands = JSON.parse(flowctl(['tools', fixture, '--select', 'commands']).stdout) as typeof tools;
    expect(commands.length).toBeLessThan(tools.length);
  });

  it('answers usage errors with exit 2 and a clear message', () => {
    const missing = flowctl(['validate', path.join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const unknown = flowctl(['export', fixture, '--format', 'pdf']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown target format "pdf"; valid: json, yaml, flowdef, flowgraph, openapi, asyncapi, businessmodel');
    expect(flowctl(['export', fixture]).code).toBe(2);
    expect(flowctl(['frobnicate', fixture]).code).toBe(2);
    expect(flowctl(['validate', fixture, '--bogus']).code).toBe(2);
    expect(flowctl([]).code).toBe(2);
    expect(flowctl(['--help']).code).toBe(0);
  });

  it('reads standard input with "-"', () => {
    const r = flowctl(['export', '-', '--format', 'json'], readFileSync(fixture, 'utf8'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('Order Service');
  });

  describe('store verify and repair', () => {
    /** A DATA_DIR with two service stores of three records each; `damage` edits the profiles journal. */
    async function dataDir(damage: (text: string) => string = (t) => t): Promise<{ data: string; journal: string }> {
      const data = mkdtempSync(path.join(tmpdir(), 'flowctl-store-'));
      for (const svc of ['deployments', 'profiles']) {
        const s = await createEmbeddedStore({ dir: path.join(data, svc), fsync: 'never', ttlReapIntervalMs: 0 });
        for (const id of ['a', 'b', 'c']) await s.collection('x').insertOne({ _id: id });
        await s.close();
      }
      const journal = path.join(data, 'profiles', 'journal-1.jsonl');
      writeFileSync(journal, damage(readFileSync(journal, 'utf8')));
      return { data, journal };
    }

    it('verify: exit 0 and the record counts of every service store when all are clean', async () => {
      const { data } = await dataDir();
      const r = flowctl(['store', 'verify', data]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${path.join(data, 'deployments')}: clean\n  journal-1.jsonl: 129 bytes, 3 records, ok`);
      expect(r.stdout).toContain(`${path.join(data, 'profiles')}: clean`);
    });

    it('verify: exit 1 naming the first bad record, its byte offset and the reason', async () => {
      const { data, journal } = await dataDir((t) => t.replace('"_id":"b"', '"_id":"B"'));
      const offset = readFileSync(journal, 'utf8').indexOf('\n') + 1;
      const r = flowctl(['store', 'verify', data]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`${path.join(data, 'deployments')}: clean`);
      expect(r.stdout).toContain(`${path.join(data, 'profiles')}: CORRUPT (the store refuses to open)`);
      expect(r.stdout).toMatch(new RegExp(`first bad record: #2 at byte ${offset}: checksum mismatch: stored [0-9a-f]{8}, computed [0-9a-f]{8}`));
      const json = JSON.parse(flowctl(['store', 'verify', path.join(data, 'profiles'), '--format', 'json']).stdout);
      expect(json.stores[0].files[0]).toMatchObject({ records: 1, firstBad: { record: 2, offset, tornTail: false } });
    });

    it('repair --truncate-at-first-bad keeps a backup, reports what it dropped, and the store opens with the rest', async () => {
      const { data, journal } = await dataDir((t) => t.replace('"_id":"b"', '"_id":"B"'));
      const before = readFileSync(journal);
      const offset = before.indexOf('\n') + 1;
      const r = flowctl(['store', 'repair', data, '--truncate-at-first-bad']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${path.join(data, 'deployments')}: clean, nothing to repair`);
      expect(r.stdout).toMatch(new RegExp(`profiles: truncated journal-1\\.jsonl at byte ${offset} \\(backup journal-1\\.jsonl\\.bak-[0-9TZ-]+\\)`));
      expect(r.stdout).toContain(`dropped 2 records (1 of them intact after the damage) and ${before.length - offset} bytes`);
      const backup = readdirSync(path.dirname(journal)).find((f) => f.startsWith('journal-1.jsonl.bak-'))!;
      expect(readFileSync(path.join(path.dirname(journal), backup))).toEqual(before);
      expect(statSync(journal).size).toBe(offset);
      expect(flowctl(['store', 'verify', data]).code).toBe(0);
      const s = await createEmbeddedStore({ dir: path.dirname(journal), fsync: 'never', ttlReapIntervalMs: 0 });
      expect(await s.collection('x').find({})).toEqual([{ _id: 'a' }]);
      await s.close();
    });

    it('answers store usage errors with exit 2', async () => {
      const { data } = await dataDir();
      const noFlag = flowctl(['store', 'repair', data]);
      expect(noFlag.code).toBe(2);
      expect(noFlag.stderr).toContain('needs --truncate-at-first-bad');
      expect(flowctl(['store', 'verify', path.join(data, 'nope')]).stderr).toContain('no such directory');
      expect(flowctl(['store', 'verify', dir]).stderr).toContain('no embedded store under');
      expect(flowctl(['store', 'fix', data]).code).toBe(2);
      expect(flowctl(['store', 'verify']).code).toBe(2);
    });
  });

  it('secrets new-key prints a SECRETS_KEY entry that the platform accepts', () => {
    const named = flowctl(['secrets', 'new-key', '--kid', 'k2']);
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/^k2:[A-Za-z0-9+/]{43}=\n$/);
    expect(SecretsKeyring.parse(named.stdout.trim()).primaryKid).toBe('k2');
    const other = flowctl(['secrets', 'new-key']).stdout.trim();
    expect(other).not.toBe(named.stdout.trim());
    expect(SecretsKeyring.parse(`${other},${named.stdout.trim()}`).kids).toHaveLength(2);
    expect(flowctl(['secrets', 'new-key', '--kid', 'bad id']).code).toBe(2);
    expect(flowctl(['secrets']).code).toBe(2);
  });
});
