import { DefaultRoomPolicy } from './room-policy';
import { encodeFrame, parseClientFrame, roomNameProblem } from './hub-envelope';
import { originAllowed } from './hub-sockets';
import type { IncomingMessage } from 'node:http';

const principal = (sub: string, extra: Partial<{ service: boolean; superuser: boolean }> = {}) => ({ sub, perms: [], active: true, superuser: false, service: false, ...extra });

describe('envelope', () => {
  it('always carries type, room as a string, data and an ISO timestamp', () => {
    const pong = JSON.parse(encodeFrame('pong'));
    expect(pong).toEqual({ type: 'pong', room: '', data: null, ts: expect.any(String) });
    expect(new Date(pong.ts).toISOString()).toBe(pong.ts);
    expect(JSON.parse(encodeFrame('message', 'r1', { a: 1 }))).toMatchObject({ type: 'message', room: 'r1', data: { a: 1 } });
  });
});

describe('client frames', () => {
  it('accepts subscribe, unsubscribe and ping only', () => {
    expect(parseClientFrame('{"action":"subscribe","room":"a:b"}')).toEqual({ action: 'subscribe', room: 'a:b' });
    expect(parseClientFrame('{"action":"unsubscribe","room":"r"}')).toEqual({ action: 'unsubscribe', room: 'r' });
    expect(parseClientFrame('{"action":"ping"}')).toEqual({ action: 'ping' });
    expect(parseClientFrame('{"action":"broadcast","room":"r","data":1}')).toMatchObject({ error: expect.stringMatching(/cannot publish/) });
    expect(parseClientFrame('[1]')).toMatchObject({ error: expect.any(String) });
    expect(parseClientFrame('null')).toMatchObject({ error: expect.any(String) });
    expect(parseClientFrame('{')).toMatchObject({ error: 'frame is not valid JSON' });
    expect(parseClientFrame('{"action":"subscribe"}')).toMatchObject({ error: expect.stringMatching(/room/) });
  });

  it('validates room names', () => {
    for (const ok of ['a', 'session-123', 'user:auth0|42', 'org.team_1@x+y']) expect(roomNameProblem(ok)).toBeUndefined();
    for (const bad of ['', ' a', '-a', 'a b', 'a/b', 'x'.repeat(201), 42]) expect(roomNameProblem(bad)).toBeDefined();
  });
});

describe('default room policy', () => {
  const policy = new DefaultRoomPolicy();
  it('keeps personal rooms personal', () => {
    expect(policy.canJoin(principal('alice'), 'user:alice')).toBe(true);
    expect(policy.canJoin(principal('alice'), 'user:bob')).toEqual(expect.stringMatching(/personal/));
    expect(policy.canJoin(undefined, 'user:bob')).toEqual(expect.any(String));
    expect(policy.canJoin(undefined, 'lobby')).toBe(true);
    expect(policy.canBroadcast(principal('alice'), 'user:bob')).toEqual(expect.any(String));
    expect(policy.canBroadcast(principal('svc:x', { service: true }), 'user:bob')).toBe(true);
    expect(policy.canBroadcast(principal('root', { superuser: true }), 'user:bob')).toBe(true);
  });
});

describe('origin check', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  it('accepts no Origin, the same host (always) and listed origins; refuses the rest', () => {
    expect(originAllowed(req({ host: 'h:8080' }), [])).toBe(true);
    expect(originAllowed(req({ host: 'h:8080', origin: 'http://h:8080' }), [])).toBe(true);
    expect(originAllowed(req({ host: 'h:8080', origin: 'http://evil' }), [])).toBe(false);
    expect(originAllowed(req({ host: 'h:8080', origin: 'https://app.example/' }), ['https://app.example'])).toBe(true);
    expect(originAllowed(req({ host: 'h:8080', origin: 'http://h:8080' }), ['https://app.example'])).toBe(true);
    expect(originAllowed(req({ host: 'h:8080', origin: 'http://other:8080' }), ['https://app.example'])).toBe(false);
    expect(originAllowed(req({ host: 'h', origin: 'http://any' }), ['*'])).toBe(true);
    expect(originAllowed(req({ host: 'h', origin: 'null' }), [])).toBe(false);
  });
});
