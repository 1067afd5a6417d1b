import { compileFlow, FlowEngine, NodeRegistry } from '@flowplane/flow/engine';
import type { FlowDocument } from '@flowplane/flow/ir';
import type { BusPublisher } from './bus-publisher';
import { emailSendHandler, emailSendManifest, emailSendNode, withSettings } from './email-send.node';
import { templateRenderNode } from './template-render.node';
import { nodeContext, single } from './test-context';

function fakeBus(fail?: () => Error) {
  const published: Array<{ topic: string; data: Record<string, unknown> }> = [];
  const bus: BusPublisher = {
    publish: async <T>(topic: string, data: T, options?: { id?: string }) => {
      const f = fail?.();
      if (f) throw f;
      published.push({ topic, data: data as Record<string, unknown> });
      return { id: options?.id ?? 'evt', data } as never;
    },
  };
  return { bus, published };
}

const HANDOFF = { handoffId: 'h1', email: 'visitor@example.com', reason: 'billing', priority: 'high', transcript: 'user: hi\nassistant: hello' };

describe('svc/email-send settings', () => {
  it('declares to, subject, body, from and replyTo in form order', () => {
    expect(emailSendManifest.settingsSchema?.$schema).toBeDefined();
    expect(emailSendManifest.settingsSchema?.['x-ui']).toEqual({ order: ['to', 'subject', 'body', 'from', 'replyTo'] });
  });

  it('fills the fields the packet leaves blank from the settings, rendered over the packet', async () => {
    const { bus, published } = fakeBus();
    const config = { to: 'desk@example.com, lead@example.com', subject: 'Handoff: {{input.reason}}', body: 'From {{input.email}}\n{{input.transcript}}', replyTo: '{{input.email}}', from: 'Bot <bot@example.com>' };
    await single(emailSendHandler(bus)(nodeContext(HANDOFF, config)));
    expect(published).toEqual([
      {
        topic: 'email.send',
        data: { to: ['desk@example.com', 'lead@example.com'], from: 'Bot <bot@example.com>', replyTo: 'visitor@example.com', subject: 'Handoff: billing', text: 'From visitor@example.com\nuser: hi\nassistant: hello' },
      },
    ]);
  });

  it('lets the packet win over the settings, and keeps html without adding the body', () => {
    const packet = { to: ['a@example.com'], subject: 'Mine', html: '<p>x</p>', tags: ['t'] };
    expect(withSettings(packet, { to: 'b@example.com', subject: 'Theirs', body: 'ignored' })).toEqual(packet);
    expect(withSettings({ to: '', subject: '  ' }, { to: 'b@example.com', subject: 'S' })).toEqual({ to: 'b@example.com', subject: 'S' });
  });

  it('forwards tags and refuses a message still missing its recipient', async () => {
    const { bus, published } = fakeBus();
    await single(emailSendHandler(bus)(nodeContext({ to: 'a@example.com', subject: 'S', text: 'T', tags: ['assistant', 'handoff'] })));
    expect(published[0].data['tags']).toEqual(['assistant', 'handoff']);
    await expect(single(emailSendHandler(bus)(nodeContext({ subject: 'S', text: 'T' }, { to: '' })))).rejects.toThrow(/invalid email: to/);
  });

  it('resolves a $setting recipient chain at run time through the engine', async () => {
    const { bus, published } = fakeBus();
    const registry = new NodeRegistry([emailSendNode(bus)]);
    const doc: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'mail', kind: 'action', action_ref: 'svc/email-send', config: { to: '$setting:assistant/handoff_notify_to || $setting:site/support_email || support@localhost', subject: 'S {{input.reason}}', body: '{{input.transcript}}' } },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'mail' },
        { id: 'e2', from: 'mail', to: 'end', port: 'Sent' },
      ],
    };
    const settings: Record<string, string> = { 'site/support_email': 'help@example.com' };
    const engine = new FlowEngine({ settings: { get: async (m, k) => settings[`${m}/${k}`] } });
    const flow = compileFlow(doc, registry);
    expect((await engine.start(flow, HANDOFF).done).status).toBe('completed');
    settings['assistant/handoff_notify_to'] = 'desk@example.com';
    await engine.start(flow, HANDOFF).done;
    expect(published.map((p) => p.data['to'])).toEqual([['help@example.com'], ['desk@example.com']]);
    await engine.close();
  });
});

describe('svc/email-send on an ephemeral edge', () => {
  // The chat answers on the direct path; the mail hangs off an ephemeral edge as in the production template.
  const doc: FlowDocument = {
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'answer', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Answer to {{input.q}}', target: 'content' } },
      { id: 'mail', kind: 'action', action_ref: 'svc/email-send', config: { to: 'safety@example.com', subject: 'Blocked', body: '{{input.q}}' } },
      // The answer path is still going when the mail fails: on a direct edge that failure would end the run.
      { id: 'guard', kind: 'action', action_ref: 't/slow' },
      { id: 'end', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'answer' },
      { id: 'e2', from: 'answer', to: 'mail', delivery_mode: 'ephemeral' },
      { id: 'e3', from: 'answer', to: 'guard' },
      { id: 'e4', from: 'guard', to: 'end' },
    ],
  };

  it.each([
    ['the bus refuses the publish', () => new Error('bus down')],
    ['the message is invalid', undefined],
  ])('completes the run with its answer when %s', async (_case, fail) => {
    const { bus } = fakeBus(fail);
    const registry = new NodeRegistry([templateRenderNode, emailSendNode(bus)]);
    registry.define({ id: 't/slow', name: 'slow', kind: 'action', inputs: [], outputs: [{ port: 'out' }] }, async (ctx) => {
      await new Promise((r) => setTimeout(r, 50));
      return { port: 'out', packet: ctx.input };
    });
    const input = fail ? { q: 'hi' } : { q: 'hi', to: 'not an address' };
    const engine = new FlowEngine();
    const result = await engine.start(compileFlow(doc, registry), input).done;
    expect(result.status).toBe('completed');
    expect(result.output).toMatchObject({ content: 'Answer to hi' });
    await engine.close();
  });
});
