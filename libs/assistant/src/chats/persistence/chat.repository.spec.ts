import { describeIntegration, mongoTestServer } from '@flowplane/platform/testing';
import { createMemoryStore, createMongoStore, type MongoStore } from '@flowplane/platform/store';
import { chatRepositoryCases } from './chat.repository.cases';
import { ChatRepository } from './chat.repository';

describe('ChatRepository: memory', () => {
  chatRepositoryCases(async () => createMemoryStore());
});

/** The chats collection on the MongoDB adapter (STORE=mongo), on a MongoDB-wire server. */
const mongo = mongoTestServer();
describeIntegration(`ChatRepository: mongo (${mongo.source})`, mongo.unavailable, { requiredInCi: true }, () => {
  const dbName = `flowplane_assistant_chats_${process.pid}_${Date.now()}`;
  let n = 0;
  let url = '';
  let server: Awaited<ReturnType<typeof mongo.start>> | undefined;
  const opened: MongoStore[] = [];
  const open = async (db: string) => {
    const s = await createMongoStore({ url, dbName: db, logger: { warn: () => undefined } });
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    server = await mongo.start();
    url = server.url;
  }, 240_000);
  afterAll(async () => {
    for (const s of opened) {
      await s.dropDatabase().catch(() => undefined);
      await s.close().catch(() => undefined);
    }
    await server?.stop();
  });

  chatRepositoryCases(() => open(`${dbName}_${++n}`));

  it('declares the unique session index and a TTL on expiresAt that reaps expired chats', async () => {
    const store = await open(`${dbName}_indexes`);
    await new ChatRepository(store).ensureIndexes();
    const { default: mongoose } = await import('mongoose');
    const conn = await mongoose.createConnection(url, { dbName: `${dbName}_indexes` }).asPromise();
    try {
      const raw = conn.db!.collection(ChatRepository.COLLECTION);
      const indexes = await raw.indexes();
      expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'chat_session', key: { sessionId: 1 }, unique: true })]));
      if (store.server.ferretdb) {
        // FerretDB 1.x holds no TTL index: the adapter keeps the rule and reaps (docs/engines/ferretdb.md).
        expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'chat_ttl', key: { expiresAt: 1 } })]));
        await raw.insertMany([
          { _id: 'expired' as never, sessionId: 'gone', expiresAt: new Date(Date.now() - 1000) },
          { _id: 'live' as never, sessionId: 'kept', expiresAt: new Date(Date.now() + 60_000) },
        ]);
        expect(await store.reapExpired()).toBeGreaterThanOrEqual(1);
        expect((await raw.find({}).toArray()).map((d) => d._id)).toEqual(['live']);
      } else {
        expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'chat_ttl', key: { expiresAt: 1 }, expireAfterSeconds: 0 })]));
      }
    } finally {
      await conn.close();
    }
  });
});
