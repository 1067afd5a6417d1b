import { describeIntegration } from '@flowplane/platform/testing';
import { createMemoryStore, createMongoStore, type MongoStore } from '@flowplane/platform/store';
import { chatRepositoryCases } from './chat.repository.cases';
import { ChatRepository } from './chat.repository';

describe('ChatRepository: memory', () => {
  chatRepositoryCases(async () => createMemoryStore());
});

/** The chats collection on the MongoDB adapter (STORE=mongo); runs where MONGO_URL is set. */
describeIntegration('ChatRepository: mongo', process.env.MONGO_URL ? false : 'MONGO_URL not set', { requiredInCi: false }, () => {
  const dbName = `flowplane_assistant_chats_${process.pid}_${Date.now()}`;
  let n = 0;
  const opened: MongoStore[] = [];
  const open = async (db: string) => {
    const s = await createMongoStore({ url: process.env.MONGO_URL as string, dbName: db, logger: { warn: () => undefined } });
    opened.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of opened) {
      await s.dropDatabase().catch(() => undefined);
      await s.close().catch(() => undefined);
    }
  });

  chatRepositoryCases(() => open(`${dbName}_${++n}`));

  it('declares the unique session index and the TTL index on expiresAt that reaps expired chats', async () => {
    const store = await open(`${dbName}_indexes`);
    await new ChatRepository(store).ensureIndexes();
    const { default: mongoose } = await import('mongoose');
    const conn = await mongoose.createConnection(process.env.MONGO_URL as string, { dbName: `${dbName}_indexes` }).asPromise();
    try {
      const indexes = await conn.db!.collection(ChatRepository.COLLECTION).indexes();
      expect(indexes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'chat_session', key: { sessionId: 1 }, unique: true }),
          expect.objectContaining({ name: 'chat_ttl', key: { expiresAt: 1 }, expireAfterSeconds: 0 }),
        ]),
      );
    } finally {
      await conn.close();
    }
  });
});
