import type { Store } from '@flowplane/platform/store';
import type { ChatStamp } from '../domain/chat.entity';
import { ChatRepository } from './chat.repository';

const stamp = (sessionId: string, extra: Partial<ChatStamp> = {}): ChatStamp => ({
  sessionId,
  flowId: 'assistant',
  versionHash: 'h1',
  variantLabel: 'stable',
  ...extra,
});
const t0 = new Date('2030-01-01T00:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

/**
 * What ChatRepository promises on any Store engine (memory, embedded, MongoDB): creation with its
 * stamp, appends in place, the expiry moved by every append (the TTL bump), a reply stored once,
 * ratings, handoff links, expiry and the admin list. `open` gives an empty store per case.
 */
export function chatRepositoryCases(open: () => Promise<Store>): void {
  let store: Store;
  let repo: ChatRepository;

  beforeEach(async () => {
    store = await open();
    repo = new ChatRepository(store);
    await repo.ensureIndexes();
  });
  afterEach(() => store.close());

  it('creates the chat on the first message with its stamp and appends later turns in place', async () => {
    const first = await repo.append(stamp('session-1', { userId: 'u1' }), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    expect(first).toMatchObject({ sessionId: 'session-1', userId: 'u1', flowId: 'assistant', versionHash: 'h1', variantLabel: 'stable', runIds: [] });
    const second = await repo.append(stamp('session-1', { versionHash: 'h2', variantLabel: 'b' }), { role: 'user', content: 'again', at: later(10) }, later(2000), later(10));
    expect(second.id).toBe(first.id);
    expect(second.versionHash).toBe('h1');
    expect(second.variantLabel).toBe('stable');
    expect(second.messages.map((m) => m.content)).toEqual(['hi', 'again']);
    expect(second.expiresAt).toEqual(later(2000));
  });

  it('appends a run reply once, however often it is offered', async () => {
    await repo.append(stamp('session-2'), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    const reply = { role: 'assistant' as const, content: 'hello', at: later(5), runId: 'r1', status: 'completed' };
    expect(await repo.appendReply('session-2', reply, later(3000), later(5))).toBe(true);
    expect(await repo.appendReply('session-2', reply, later(3000), later(5))).toBe(false);
    const chat = await repo.findBySessionId('session-2', later(6));
    expect(chat?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(chat?.runIds).toEqual(['r1']);
    expect(chat?.expiresAt).toEqual(later(3000));
  });

  it('rates the assistant turn of a run and links a handoff', async () => {
    await repo.append(stamp('session-3'), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    await repo.appendReply('session-3', { role: 'assistant', content: 'x', at: t0, runId: 'r9' }, later(1000), t0);
    expect(await repo.rate('session-3', 'r9', 'down', 'meh', t0)).toBe(true);
    expect(await repo.rate('session-3', 'nope', 'up', undefined, t0)).toBe(false);
    expect(await repo.attachHandoff('session-3', 'h-1', undefined, t0)).toBe(true);
    expect(await repo.attachHandoff('no-such-session', 'h-1', undefined, t0)).toBe(false);
    const chat = await repo.findBySessionId('session-3', t0);
    expect(chat?.messages[1]).toMatchObject({ rating: 'down', comment: 'meh' });
    expect(chat?.handoffId).toBe('h-1');
  });

  it('hides expired chats, starts a session afresh after expiry, and sweeps them', async () => {
    await repo.append(stamp('session-4'), { role: 'user', content: 'old', at: t0 }, later(1000), t0);
    expect(await repo.findBySessionId('session-4', later(1000))).toBeNull();
    const fresh = await repo.append(stamp('session-4', { versionHash: 'h2' }), { role: 'user', content: 'new', at: later(2000) }, later(5000), later(2000));
    expect(fresh.messages.map((m) => m.content)).toEqual(['new']);
    expect(fresh.versionHash).toBe('h2');
    await repo.append(stamp('session-5'), { role: 'user', content: 'x', at: t0 }, later(100), t0);
    expect(await repo.sweepExpired(later(200))).toBe(1);
  });

  it('lists newest activity first, filtered, paged by cursor', async () => {
    for (let i = 0; i < 5; i++) {
      await repo.append(stamp(`session-l${i}`, { variantLabel: i % 2 ? 'b' : 'stable' }), { role: 'user', content: `${i}`, at: later(i) }, later(10_000), later(i));
    }
    const page1 = await repo.list({}, 2, undefined, t0);
    expect(page1.map((c) => c.sessionId)).toEqual(['session-l4', 'session-l3']);
    const page2 = await repo.list({}, 2, { at: page1[1].lastActivityAt, id: page1[1].id }, t0);
    expect(page2.map((c) => c.sessionId)).toEqual(['session-l2', 'session-l1']);
    expect((await repo.list({ variantLabel: 'b' }, 10, undefined, t0)).map((c) => c.sessionId)).toEqual(['session-l3', 'session-l1']);
  });

  it('moves the expiry on every append, user turn or reply (the TTL bump)', async () => {
    const first = await repo.append(stamp('session-ttl'), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    expect(first.expiresAt).toEqual(later(1000));
    await repo.appendReply('session-ttl', { role: 'assistant', content: 'hello', at: later(10), runId: 'r1' }, later(5000), later(10));
    expect((await repo.findBySessionId('session-ttl', later(20)))?.expiresAt).toEqual(later(5000));
    // Alive past the first expiry because the reply moved it.
    const third = await repo.append(stamp('session-ttl'), { role: 'user', content: 'still here?', at: later(2000) }, later(9000), later(2000));
    expect(third.messages.map((m) => m.content)).toEqual(['hi', 'hello', 'still here?']);
    expect(third.expiresAt).toEqual(later(9000));
    expect(third.lastActivityAt).toEqual(later(2000));
    expect(third.createdAt).toEqual(t0);
    expect(await repo.sweepExpired(later(8999))).toBe(0);
    expect(await repo.sweepExpired(later(9000))).toBe(1);
  });

  it('makes one chat of concurrent first messages of a session', async () => {
    await Promise.all(['a', 'b', 'c'].map((content, i) => repo.append(stamp('session-race'), { role: 'user', content, at: later(i) }, later(1000), later(i))));
    const chat = await repo.findBySessionId('session-race', t0);
    expect(chat?.messages.map((m) => m.content).sort()).toEqual(['a', 'b', 'c']);
    expect(await repo.list({}, 10, undefined, t0)).toHaveLength(1);
  });

  it('withdraws a user turn whose run never started, and the chat with it when that was all', async () => {
    await repo.append(stamp('session-w1'), { role: 'user', content: 'lonely', at: t0 }, later(1000), t0);
    await repo.withdraw('session-w1', t0);
    expect(await repo.findBySessionId('session-w1', t0)).toBeNull();
    await repo.append(stamp('session-w2'), { role: 'user', content: 'first', at: t0 }, later(1000), t0);
    await repo.addRun('session-w2', 'r1');
    await repo.append(stamp('session-w2'), { role: 'user', content: 'second', at: later(5) }, later(1000), later(5));
    await repo.withdraw('session-w2', later(5));
    expect((await repo.findBySessionId('session-w2', t0))?.messages.map((m) => m.content)).toEqual(['first']);
  });

  it('records a run and stamps the version of a chat created before its first run in one write', async () => {
    await repo.append(stamp('session-run', { versionHash: '' }), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    await repo.addRun('session-run', 'r1', 'h9');
    await repo.addRun('session-run', 'r2');
    expect(await repo.findBySessionId('session-run', t0)).toMatchObject({ versionHash: 'h9', runIds: ['r1', 'r2'] });
  });

  it('starts afresh after dropExpired, as append does, and appendLive keeps a live chat', async () => {
    await repo.appendLive(stamp('session-live'), { role: 'user', content: 'old', at: t0 }, later(1000), t0);
    await repo.dropExpired('session-live', later(10));
    await repo.appendLive(stamp('session-live'), { role: 'user', content: 'kept', at: later(10) }, later(2000), later(10));
    expect((await repo.findBySessionId('session-live', later(10)))?.messages.map((m) => m.content)).toEqual(['old', 'kept']);
    await repo.dropExpired('session-live', later(3000));
    const fresh = await repo.appendLive(stamp('session-live', { versionHash: 'h2' }), { role: 'user', content: 'new', at: later(3000) }, later(5000), later(3000));
    expect(fresh).toMatchObject({ versionHash: 'h2', messages: [expect.objectContaining({ content: 'new' })] });
  });

  it('creates with startNew the same chat that append creates, and later turns append to it', async () => {
    const viaAppend = await repo.append(stamp('session-a', { userId: 'u1' }), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    const viaStart = await repo.startNew(stamp('session-b', { userId: 'u1' }), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    const { id: _a, sessionId: _sa, ...a } = viaAppend;
    const { id: _b, sessionId: _sb, ...b } = viaStart;
    expect(b).toEqual(a);
    const anonymous = await repo.startNew(stamp('session-c'), { role: 'user', content: 'hi', at: t0 }, later(1000), t0);
    expect(anonymous).not.toHaveProperty('userId');
    await repo.addRun('session-b', 'r1', 'h7');
    const next = await repo.append(stamp('session-b'), { role: 'user', content: 'again', at: later(5) }, later(2000), later(5));
    expect(next).toMatchObject({ id: viaStart.id, versionHash: 'h7', runIds: ['r1'], expiresAt: later(2000) });
    expect(next.messages.map((m) => m.content)).toEqual(['hi', 'again']);
    expect(await repo.list({ userId: 'u1' }, 10, undefined, t0)).toHaveLength(2);
  });
}
