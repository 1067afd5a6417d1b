import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';

/**
 * Ids in paths (a template id holds a slash: `flow/echo`, sent as it is or percent-encoded, as
 * clients that encode path parameters do) and the spec's create-from-template sequence, whose
 * last step publishes with no body.
 */
describe('ids in paths and publish without a body', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  let runtimeApi: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
    runtimeApi = `${platform.services.find((s) => s.name === 'flow-runtime')!.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('fetches a template by its id with the slash as it is or percent-encoded, through the gateway and directly', async () => {
    const plain = await call(`${api}/flows/templates/flow/echo`, { bearer: admin });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ flowdef: '1.0' });
    for (const base of [api, runtimeApi]) {
      for (const id of ['flow%2Fecho', 'flow%2fecho', encodeURIComponent('flow/echo')]) {
        const res = await call(`${base}/flows/templates/${id}`, { bearer: admin });
        expect({ base, id, status: res.status }).toEqual({ base, id, status: 200 });
        expect(res.body).toEqual(plain.body);
      }
      const ir = await call(`${base}/flows/templates/flow%2Fecho?format=ir`, { bearer: admin });
      expect(ir.status).toBe(200);
      expect(ir.body.nodes).toEqual(expect.any(Array));
    }
  });

  it('answers 404 with the decoded id for an unknown template, in either form', async () => {
    for (const path of ['flow%2Fnope', 'flow/nope', 'flow/echo/extra']) {
      const res = await call(`${api}/flows/templates/${path}`, { bearer: admin });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, code: 'TEMPLATE_NOT_FOUND' });
    }
    expect((await call(`${api}/flows/templates/flow%2Fnope`, { bearer: admin })).body.message).toContain('flow/nope');
    expect((await call(`${api}/flows/templates/flow%2Fecho`)).status).toBe(401);
    expect((await call(`${api}/flows/templates/flow%2Fecho`, { bearer: await token('bob', []) })).status).toBe(403);
  });

  it('reads flows and versions by percent-encoded ids', async () => {
    const versionId = await publishFlow(api, admin, 'enc-flow', passThroughFlow);
    expect((await call(`${api}/flows/enc%2Dflow`, { bearer: admin })).body).toMatchObject({ id: 'enc-flow' });
    const v = await call(`${api}/flows/enc-flow/versions/${encodeURIComponent(versionId)}`, { bearer: admin });
    expect(v.status).toBe(200);
    expect(v.body.versionId).toBe('enc-flow@v1');
  });

  it('creates a flow from a template as the spec lists it: fetch by id, save in spec form, publish with no body', async () => {
    const doc = await call(`${api}/flows/templates/${encodeURIComponent('flow/echo')}`, { bearer: admin });
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'from-echo', name: 'From echo' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/from-echo/versions?format=spec`, { method: 'POST', bearer: admin, ...json(doc.body) });
    expect(saved.status).toBe(201);
    const published = await call(`${api}/flows/from-echo/publish`, { method: 'POST', bearer: admin });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ flowId: 'from-echo', target: { versionId: saved.body.versionId } });
    expect((await call(`${api}/flows/from-echo`, { bearer: admin })).body.published).toEqual({ versionId: saved.body.versionId });
  });

  it('publishes the latest saved version with no body or an empty one, and refuses both versionID and variants', async () => {
    const v1 = await publishFlow(api, admin, 'latest-flow', passThroughFlow, { publish: false });
    const v2 = await call(`${api}/flows/latest-flow/versions`, { method: 'POST', bearer: admin, ...json({ ...passThroughFlow, description: 'second' }) });
    expect(v2.body.versionId).not.toBe(v1);
    const noBody = await call(`${api}/flows/latest-flow/publish`, { method: 'POST', bearer: admin });
    expect(noBody.status).toBe(200);
    expect(noBody.body.target).toEqual({ versionId: v2.body.versionId });
    // An explicit version still wins; `{}` means the latest again.
    expect((await call(`${api}/flows/latest-flow/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v1 }) })).body.target).toEqual({ versionId: v1 });
    expect((await call(`${api}/flows/latest-flow/publish`, { method: 'POST', bearer: admin, ...json({}) })).body.target).toEqual({ versionId: v2.body.versionId });
    const both = await call(`${api}/flows/latest-flow/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v1, variants: [{ label: 'a', versionID: v1, weight: 1 }] }) });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('INVALID_PUBLISH');
  });

  it('answers 409 when a flow without versions is published with no body, and 404 for an unknown flow', async () => {
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'empty-flow', name: 'Empty' }) })).status).toBe(201);
    const empty = await call(`${api}/flows/empty-flow/publish`, { method: 'POST', bearer: admin });
    expect(empty.status).toBe(409);
    expect(empty.body).toMatchObject({ statusCode: 409, code: 'NO_VERSION', message: expect.stringContaining('no saved version') });
    expect((await call(`${api}/flows/ghost-flow/publish`, { method: 'POST', bearer: admin })).status).toBe(404);
  });
});
