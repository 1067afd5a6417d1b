import { NODE_REGISTRY } from '@flowplane/flow-runtime';
import type { NodeRegistry } from '@flowplane/flow/engine';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { CATALOG_CONTEXT_ID, catalogContextNode } from '../examples/catalog-context.node';
import { call, json, parseSse, testEnv, token, until } from '../support/http';

/**
 * Rule 10, the domain-grounded chat pattern: a custom node registered on the shared engine by id
 * writes messages, sources and actions; the guards pass the packet, llm-chat forwards sources and
 * actions, and the assistant's `message` frame carries them.
 */
describe('assistant: domain-grounded chat with a custom node', () => {
  let platform: Standalone;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '1000' }) });
    api = `${platform.url}/api/v1`;
    const admin = await token('alice', ['admin:access']);
    platform.services.find((s) => s.name === 'flow-runtime')!.app.get<NodeRegistry>(NODE_REGISTRY).define(catalogContextNode.manifest, catalogContextNode.handler);
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    const version = await call(`${api}/flows/assistant/versions`, {
      method: 'POST',
      bearer: admin,
      ...json({
        name: 'Shop assistant',
        nodes: [
          { id: 'start', name: 'Start', kind: 'start' },
          { id: 'catalog', name: 'Catalog', kind: 'action', action_ref: CATALOG_CONTEXT_ID },
          { id: 'guard_in', name: 'Input guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'pii', role: 'input', action: 'flag' } },
          { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { providerID: 'local' } },
          { id: 'guard_out', name: 'Output guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'pii', role: 'output', action: 'flag' } },
          { id: 'end', name: 'End', kind: 'end' },
        ],
        edges: [
          { id: 'e1', from: 'start', to: 'catalog' },
          { id: 'e2', from: 'catalog', to: 'guard_in' },
          { id: 'e3', from: 'guard_in', to: 'chat', condition: 'port == "Allow" || port == "Flag"' },
          { id: 'e4', from: 'chat', to: 'guard_out', port: 'Reply' },
          { id: 'e5', from: 'guard_out', to: 'end', condition: 'port == "Allow" || port == "Flag"' },
        ],
      }),
    });
    expect(version.status).toBe(201);
    expect((await call(`${api}/flows/assistant/publish`, { method: 'POST', bearer: admin, ...json({ versionID: version.body.versionId }) })).status).toBe(200);
  }, 60_000);
  afterAll(() => platform?.close());

  it('sends the sources and actions the custom node wrote in the message frame, and the model answered the grounded user message', async () => {
    const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Which kettle do you have?' }) });
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    const message = frames.find((f) => f.event === 'message');
    expect(message?.data).toMatchObject({
      status: 'completed',
      content: expect.stringContaining('Which kettle do you have?'),
      sources: [
        { title: 'Steel kettle 1.7 l', url: 'https://shop.example.com/p/K-100' },
        { title: 'Glass kettle 1.5 l', url: 'https://shop.example.com/p/K-200' },
      ],
      actions: [
        { label: 'Add K-100 to cart', type: 'add_to_cart', sku: 'K-100' },
        { label: 'Add K-200 to cart', type: 'add_to_cart', sku: 'K-200' },
      ],
    });
  });
});
