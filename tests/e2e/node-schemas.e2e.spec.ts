import { createSettingsAjv, SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv, token, until } from '../support/http';

interface ListedNode {
  id: string;
  remote?: boolean;
  settingsSchema?: Record<string, unknown>;
}

/**
 * Every node settings schema the editor is given (`GET /flows/nodes`: built-in, LLM and the search
 * service's remote nodes, profile selectors filled) declares its dialect and compiles under the
 * one strict ajv configuration, so what the editor renders is what save-time validation enforces.
 */
describe('node settings schemas', () => {
  let platform: Standalone;
  let nodes: ListedNode[];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    const admin = await token('alice', ['admin:access']);
    // The search and i18n services register their remote nodes once they are up, in any order.
    const remote = ['svc/search-query', 'svc/search-upsert', 'i18n/translate', 'i18n/resolve-locale'];
    const res = await until(() => call(`${platform.url}/api/v1/flows/nodes`, { bearer: admin }), (r) => r.status === 200 && remote.every((id) => r.body.some((n: ListedNode) => n.remote && n.id === id)), 15_000);
    expect(res.status).toBe(200);
    nodes = res.body;
  });
  afterAll(() => platform?.close());

  it('lists the built-in, LLM and remote search nodes', () => {
    const ids = nodes.map((n) => n.id);
    expect(ids).toEqual(expect.arrayContaining(['svc/template-render', 'svc/http-request', 'svc/llm-chat', 'svc/guard', 'svc/search-query', 'svc/search-upsert', 'i18n/translate', 'i18n/resolve-locale']));
    expect(nodes.filter((n) => n.remote).length).toBeGreaterThan(0);
  });

  it('declares $schema and compiles in ajv strict mode with the x- keywords registered', () => {
    const failures: string[] = [];
    for (const node of nodes) {
      if (!node.settingsSchema) continue;
      if (node.settingsSchema.$schema !== SETTINGS_SCHEMA_DIALECT) failures.push(`${node.id}: $schema is ${JSON.stringify(node.settingsSchema.$schema)}`);
      try {
        createSettingsAjv().compile(node.settingsSchema);
      } catch (e) {
        failures.push(`${node.id}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
