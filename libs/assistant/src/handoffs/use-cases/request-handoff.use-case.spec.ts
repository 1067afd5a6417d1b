import type { CloudEvent } from '@flowplane/contracts';
import { AssistantHandoffRequestedPayload, Topics } from '@flowplane/contracts';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { DomainException } from '@flowplane/platform/http';
import type { ServiceConfig } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ChatRepository } from '../../chats/persistence/chat.repository';
import { HandoffRepository } from '../persistence/handoff.repository';
import { HandoffsOutbox } from '../persistence/handoffs.outbox';
import { HandoffPendingException, RequestHandoffUseCase } from './request-handoff.use-case';
import { UpdateHandoffUseCase } from './update-handoff.use-case';

const t0 = new Date('2030-01-01T00:00:00Z');
const stamp = (sessionId: string) => ({ sessionId, flowId: 'assistant', versionHash: 'h1', variantLabel: 'stable' });

describe('RequestHandoffUseCase', () => {
  let store: Store;
  let bus: MemoryEventBus;
  let chats: ChatRepository;
  let handoffs: HandoffRepository;
  let outbox: HandoffsOutbox;
  let events: CloudEvent<AssistantHandoffRequestedPayload>[];
  const useCase = (config: Record<string, unknown> = {}) => new RequestHandoffUseCase(handoffs, chats, outbox, config as ServiceConfig);

  beforeEach(async () => {
    store = await createMemoryStore();
    bus = new MemoryEventBus();
    chats = new ChatRepository(store);
    handoffs = new HandoffRepository(store);
    await Promise.all([chats.ensureIndexes(), handoffs.ensureIndexes()]);
    outbox = new HandoffsOutbox(store, bus);
    outbox.onApplicationBootstrap();
    events = [];
    await bus.subscribe([Topics.AssistantHandoffRequested], { groupId: 'test', fromBeginning: true }, async (e) => void events.push(e as CloudEvent<AssistantHandoffRequestedPayload>));
  });
  afterEach(async () => {
    await outbox.beforeApplicationShutdown();
    await bus.close();
    await store.close();
  });

  const waitForEvents = async (n: number) => {
    for (let i = 0; i < 200 && events.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    return events;
  };

  it('stores the transcript snapshot, links the chat and announces every payload field', async () => {
    await chats.append({ ...stamp('session-1'), userId: 'u1' }, { role: 'user', content: 'my invoice\nis wrong', at: t0 }, new Date(t0.getTime() + 86_400_000), t0);
    await chats.appendReply('session-1', { role: 'assistant', content: 'Let me get a person.', at: t0, runId: 'r1' }, new Date(t0.getTime() + 86_400_000), t0);
    const h = await useCase().execute({ sessionId: 'session-1', email: 'ada@example.com', phone: '+1 555', reason: 'billing', priority: 'low', userId: 'u1' }, t0);
    expect(h).toMatchObject({ sessionId: 'session-1', status: 'pending', priority: 'low', transcript: 'user: my invoice is wrong\nassistant: Let me get a person.' });
    const chat = await chats.findBySessionId('session-1', t0);
    expect(h.chatId).toBe(chat?.id);
    expect(chat?.handoffId).toBe(h.id);
    const [event] = await waitForEvents(1);
    expect(event).toMatchObject({ type: Topics.AssistantHandoffRequested, entitytype: 'assistant_handoff', action: 'requested' });
    expect(event.data).toEqual({
      handoffId: h.id,
      chatId: chat?.id,
      sessionId: 'session-1',
      userId: 'u1',
      email: 'ada@example.com',
      phone: '+1 555',
      reason: 'billing',
      priority: 'low',
      transcript: 'user: my invoice is wrong\nassistant: Let me get a person.',
      requestedAt: t0.toISOString(),
    });
    expect(validateSync(plainToInstance(AssistantHandoffRequestedPayload, event.data))).toEqual([]);
  });

  it('files a request without a chat: empty chatId and transcript', async () => {
    const h = await useCase().execute({ sessionId: 'session-none', email: 'a@b.co' }, t0);
    expect(h).toMatchObject({ chatId: '', transcript: '', priority: 'normal' });
    expect((await waitForEvents(1))[0].data).toMatchObject({ chatId: '', transcript: '', sessionId: 'session-none' });
  });

  it('records and announces urgent as high', async () => {
    const h = await useCase().execute({ sessionId: 'session-urgent', email: 'a@b.co', priority: 'urgent' }, t0);
    expect(h.priority).toBe('high');
    expect((await waitForEvents(1))[0].data.priority).toBe('high');
  });

  it('answers a second request of a pending session with 409 naming the pending one, writing nothing', async () => {
    const first = await useCase().execute({ sessionId: 'session-dup', email: 'a@b.co' }, t0);
    const second = await useCase().execute({ sessionId: 'session-dup', email: 'other@b.co' }, t0).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(HandoffPendingException);
    expect((second as DomainException).status).toBe(409);
    expect((second as DomainException).body).toEqual({ ok: false, handoffId: first.id, status: 'pending' });
    expect(await useCase().file({ sessionId: 'session-dup', email: 'a@b.co' }, t0)).toMatchObject({ duplicate: true, handoff: { id: first.id } });
    expect(await handoffs.list(undefined, 10)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toHaveLength(1);
  });

  it('makes exactly one row and one event of concurrent requests for one session', async () => {
    await chats.append(stamp('session-race'), { role: 'user', content: 'hi', at: t0 }, new Date(t0.getTime() + 86_400_000), t0);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => useCase().file({ sessionId: 'session-race', email: `u${i}@b.co` }, t0)));
    const filed = results.filter((r) => !r.duplicate);
    expect(filed).toHaveLength(1);
    expect(new Set(results.map((r) => r.handoff.id))).toEqual(new Set([filed[0].handoff.id]));
    expect(await handoffs.list(undefined, 10)).toHaveLength(1);
    await waitForEvents(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toHaveLength(1);
  });

  it('files a new request once the pending one moved on', async () => {
    const first = await useCase().execute({ sessionId: 'session-again', email: 'a@b.co' }, t0);
    await new UpdateHandoffUseCase(handoffs).execute(first.id, { status: 'contacted' }, 'op-1', t0);
    const second = await useCase().execute({ sessionId: 'session-again', email: 'a@b.co' }, t0);
    expect(second.id).not.toBe(first.id);
  });

  it('refuses with 403 while ASSISTANT_HANDOFF_ENABLED is false', async () => {
    const e = await useCase({ ASSISTANT_HANDOFF_ENABLED: false }).execute({ sessionId: 'session-off', email: 'a@b.co' }, t0).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainException);
    expect(e).toMatchObject({ status: 403, code: 'HANDOFF_DISABLED' });
    expect(await handoffs.list(undefined, 10)).toHaveLength(0);
  });
});

describe('UpdateHandoffUseCase', () => {
  let store: Store;
  let handoffs: HandoffRepository;
  let update: UpdateHandoffUseCase;
  const file = (sessionId: string) => handoffs.insertPending({ chatId: '', sessionId, email: 'a@b.co', priority: 'normal', transcript: '', createdAt: t0 });

  beforeEach(async () => {
    store = await createMemoryStore();
    handoffs = new HandoffRepository(store);
    await handoffs.ensureIndexes();
    update = new UpdateHandoffUseCase(handoffs);
  });
  afterEach(() => store.close());

  it('stamps contactedAt and contactedBy when moving to contacted, keeps notes', async () => {
    const h = await file('s-contact');
    const later = new Date(t0.getTime() + 5000);
    const moved = await update.execute(h.id, { status: 'contacted', notes: 'called back' }, 'operator-7', later);
    expect(moved).toMatchObject({ status: 'contacted', contactedAt: later, contactedBy: 'operator-7', notes: 'called back' });
  });

  it('lets any status follow pending or contacted, and refuses to leave resolved or dismissed (409)', async () => {
    const a = await file('s-a');
    expect((await update.execute(a.id, { status: 'contacted' }, 'op', t0)).status).toBe('contacted');
    expect((await update.execute(a.id, { status: 'pending' }, 'op', t0)).status).toBe('pending');
    expect((await update.execute(a.id, { status: 'resolved' }, 'op', t0)).status).toBe('resolved');
    for (const status of ['pending', 'contacted', 'dismissed', 'resolved'] as const) {
      await expect(update.execute(a.id, { status }, 'op', t0)).rejects.toMatchObject({ status: 409, code: 'HANDOFF_FINAL' });
    }
    const b = await file('s-b');
    expect((await update.execute(b.id, { status: 'dismissed' }, 'op', t0)).status).toBe('dismissed');
    await expect(update.execute(b.id, { status: 'contacted' }, 'op', t0)).rejects.toMatchObject({ status: 409 });
  });

  it('answers 404 for an unknown id', async () => {
    await expect(update.execute('nope', { status: 'contacted' }, 'op', t0)).rejects.toMatchObject({ status: 404, code: 'HANDOFF_NOT_FOUND' });
  });
});
