import { call, json } from './http';

/** The smallest runnable flow: start straight to end, so a run's output is its input. */
export const passThroughFlow = {
  name: 'Pass-through',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'end' }],
  meta: { positions: { start: { x: 0, y: 0 }, end: { x: 200, y: 0 } } },
};

/**
 * Creates flow `id` under `api` (the `/api/v1` base of a gateway or of a flow-runtime), saves `doc`
 * as its first version and, unless `publish` is false, publishes that version. Each step must
 * succeed. Returns the version id.
 */
export async function publishFlow(api: string, bearer: string, id: string, doc: unknown, { name = id, publish = true }: { name?: string; publish?: boolean } = {}): Promise<string> {
  expect((await call(`${api}/flows`, { method: 'POST', bearer, ...json({ id, name }) })).status).toBe(201);
  const v = await call(`${api}/flows/${id}/versions`, { method: 'POST', bearer, ...json(doc) });
  expect(v.status).toBe(201);
  if (publish) expect((await call(`${api}/flows/${id}/publish`, { method: 'POST', bearer, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
  return v.body.versionId as string;
}

/** A route flow answering `hello <name>` for GET `path` (a `{name}` parameter in it). */
export function greeterFlow(path: string) {
  return {
    name: 'Greeter',
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'hello {{ input.params.name }}', target: 'text' } },
      { id: 'end', name: 'End', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'render' },
      { id: 'e2', from: 'render', to: 'end' },
    ],
    meta: { route: { method: 'GET', path, success_status: 200 } },
  };
}
