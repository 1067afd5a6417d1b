import { eventSourceHandler, eventSourceManifest } from './event-source.node';
import { routerHandler, routerPort } from './router.node';
import { nodeContext, single } from './test-context';

describe('svc/router', () => {
  const config = { ports: ['billing', 'support'], default: 'other', portFrom: 'intent.name' };

  it('emits on the port named at portFrom when listed', () => {
    expect(routerPort(config, { intent: { name: 'billing' } })).toBe('billing');
    expect(routerPort(config, { intent: { name: 'support' } })).toBe('support');
  });

  it('falls back to the default for unlisted, missing or non-string values, and without portFrom', () => {
    expect(routerPort(config, { intent: { name: 'sales' } })).toBe('other');
    expect(routerPort(config, {})).toBe('other');
    expect(routerPort(config, { intent: { name: 3 } })).toBe('other');
    expect(routerPort({ ports: ['a'] }, { x: 'a' })).toBe('out');
    expect(routerPort({}, 'anything')).toBe('out');
  });

  it('copies the whole packet', async () => {
    const input = { intent: { name: 'support' }, text: 'help', n: 1 };
    const out = await single(routerHandler(nodeContext(input, config)));
    expect(out.port).toBe('support');
    expect(out.packet).toEqual(input);
    expect(out.packet).not.toBe(input);
    expect((await single(routerHandler(nodeContext([1, 2], {})))).packet).toEqual([1, 2]);
    expect((await single(routerHandler(nodeContext('s', {})))).packet).toBe('s');
  });
});

describe('svc/event-source', () => {
  it('passes the run input through on out and requires eventName and groupID', async () => {
    const event = { profileId: 'p1' };
    expect(await single(eventSourceHandler(nodeContext(event, { eventName: 'profiles.updated', groupID: 'g' })))).toEqual({ port: 'out', packet: event });
    expect(eventSourceManifest.kind).toBe('start');
    expect(eventSourceManifest.settingsSchema?.required).toEqual(['eventName', 'groupID']);
  });
});
