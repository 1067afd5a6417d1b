import type { FlowDocument } from '@flowplane/flow/ir';
import { compileFlow } from './compile-flow';
import { FlowEngine } from './flow-engine';
import { NodeRegistry } from './node-registry';
import { parseSettingRef, resolveSettingRef, type SettingsReaderLike } from './setting-refs';

function reader(values: Record<string, unknown>, calls: string[] = []): SettingsReaderLike {
  return {
    get: async (module, key) => {
      calls.push(`${module}/${key}`);
      const v = values[`${module}/${key}`];
      if (v instanceof Error) throw v;
      return v;
    },
  };
}

describe('$setting references', () => {
  it('parses chains of settings and literals, and leaves other values alone', () => {
    expect(parseSettingRef('$setting:assistant/handoff_notify_to')).toEqual([{ module: 'assistant', key: 'handoff_notify_to' }]);
    expect(parseSettingRef('$setting:a/b || $setting:site/support_email || support@localhost')).toEqual([
      { module: 'a', key: 'b' },
      { module: 'site', key: 'support_email' },
      { literal: 'support@localhost' },
    ]);
    expect(parseSettingRef('hello {{input.x}}')).toBeUndefined();
    expect(parseSettingRef('a || $setting:a/b')).toBeUndefined();
    expect(parseSettingRef(42)).toBeUndefined();
  });

  it('takes the first non-empty alternative', async () => {
    const chain = parseSettingRef('$setting:a/x || $setting:site/support_email || support@localhost')!;
    expect(await resolveSettingRef(chain, reader({ 'a/x': 'ops@example.com', 'site/support_email': 'help@example.com' }))).toBe('ops@example.com');
    expect(await resolveSettingRef(chain, reader({ 'a/x': '  ', 'site/support_email': 'help@example.com' }))).toBe('help@example.com');
    expect(await resolveSettingRef(chain, reader({ 'a/x': null }))).toBe('support@localhost');
  });

  describe('in the engine', () => {
    const registry = new NodeRegistry();
    registry.define(
      { id: 't/echo-config', name: 'echo', kind: 'action', settingsSchema: { type: 'object', properties: { to: { type: 'string' }, note: { type: 'string' } } }, inputs: [], outputs: [{ port: 'out' }, { port: 'Error' }] },
      (ctx) => ({ port: 'out', packet: { ...ctx.config } }),
    );
    registry.define({ id: 't/catch', name: 'catch', kind: 'action', inputs: [], outputs: [{ port: 'out' }] }, (ctx) => ({ port: 'out', packet: { caught: ctx.input } }));
    const doc: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'n', kind: 'action', action_ref: 't/echo-config', config: { to: '$setting:assistant/handoff_notify_to || $setting:site/support_email || support@localhost', note: 'plain' } },
        { id: 'catch', kind: 'action', action_ref: 't/catch' },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'n' },
        { id: 'e2', from: 'n', to: 'end', port: 'out' },
        { id: 'e3', from: 'n', to: 'catch', port: 'Error' },
        { id: 'e4', from: 'catch', to: 'end' },
      ],
    };

    it('resolves references at run time, each run reading the current value', async () => {
      const values: Record<string, unknown> = { 'site/support_email': 'help@example.com' };
      const engine = new FlowEngine({ settings: reader(values) });
      const flow = compileFlow(doc, registry);
      expect((await engine.start(flow, {}).done).output).toEqual({ to: 'help@example.com', note: 'plain' });
      values['assistant/handoff_notify_to'] = 'desk@example.com';
      expect((await engine.start(flow, {}).done).output).toEqual({ to: 'desk@example.com', note: 'plain' });
      await engine.close();
    });

    it('routes a settings read failure to the Error port instead of falling back', async () => {
      const engine = new FlowEngine({ settings: reader({ 'assistant/handoff_notify_to': new Error('profiles down') }) });
      const result = await engine.start(compileFlow(doc, registry), {}).done;
      expect(result.output).toEqual({ caught: { error: expect.stringContaining('profiles down') } });
      await engine.close();
    });

    it('uses the literal fallback, with a warning, when the engine has no settings reader', async () => {
      const engine = new FlowEngine();
      const events: Array<{ type: string; data: unknown }> = [];
      const result = await engine.start(compileFlow(doc, registry), {}, {}, { onEvent: (e) => events.push(e as { type: string; data: unknown }) }).done;
      expect(result.output).toEqual({ to: 'support@localhost', note: 'plain' });
      expect(events.some((e) => e.type === 'node.warning' && JSON.stringify(e).includes('NO_SETTINGS_READER'))).toBe(true);
      await engine.close();
    });
  });
});
