import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedStore } from './embedded.store';
import { ensurePrivateDir, findStoreDirs, repairStoreDir, StoreRepairError, verifyStoreDir } from './journal.persistence';
import { StoreUnavailableError } from './store.port';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('store files on disk', () => {
  let root: string;
  let dir: string;
  const open = () => createEmbeddedStore({ dir, fsync: 'never', ttlReapIntervalMs: 0, logger: { warn: () => undefined } });
  const journal = () => path.join(dir, readdirSync(dir).filter((f) => /^journal-\d+\.jsonl$/.test(f)).sort().at(-1) as string);

  /** Three single-document records, then `damage` applied to the journal's text. */
  async function damagedStore(damage: (text: string) => string): Promise<void> {
    const s = await open();
    for (const id of ['a', 'b', 'c']) await s.collection('x').insertOne({ _id: id, secret: `value-${id}` });
    await s.close();
    writeFileSync(journal(), damage(readFileSync(journal(), 'utf8')));
  }

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'journal-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    dir = path.join(root, `s${Math.random().toString(36).slice(2)}`, 'svc');
  });

  it('writes the directory 0700 and its files 0600, also after a compaction', async () => {
    const s = await open();
    await s.collection('x').insertOne({ _id: 'a', apiKey: 'sk-1' });
    await s.compact();
    await s.collection('x').insertOne({ _id: 'b' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.dirname(dir))).toBe(0o700); // created parents too
    for (const f of readdirSync(dir)) expect([f, mode(path.join(dir, f))]).toEqual([f, 0o600]);
    await s.close();
  });

  it('tightens the modes of a store written with lax permissions when it opens', async () => {
    const s1 = await open();
    await s1.collection('x').insertOne({ _id: 'a' });
    await s1.compact();
    await s1.close();
    chmodSync(dir, 0o755);
    for (const f of readdirSync(dir)) chmodSync(path.join(dir, f), 0o644);
    const s2 = await open();
    expect(mode(dir)).toBe(0o700);
    for (const f of readdirSync(dir)) expect([f, mode(path.join(dir, f))]).toEqual([f, 0o600]);
    await s2.close();
  });

  it('ensurePrivateDir creates or tightens a data directory', async () => {
    const data = path.join(root, 'data-root');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    await ensurePrivateDir(data);
    expect(mode(data)).toBe(0o700);
    await ensurePrivateDir(path.join(data, 'new', 'deeper'));
    expect(mode(path.join(data, 'new'))).toBe(0o700);
  });

  it('names the damage and the flowctl commands when a journal is corrupt in the middle', async () => {
    await damagedStore((t) => t.replace('"_id":"b"', '"_id":"B"'));
    const offset = readFileSync(journal(), 'utf8').indexOf('\n') + 1;
    const err = await open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    const message = (err as Error).message;
    expect(message).toContain(`corrupt at byte ${offset} (record 2: checksum mismatch`);
    expect(message).toContain(`flowctl store verify ${dir}`);
    expect(message).toContain(`flowctl store repair ${dir} --truncate-at-first-bad`);
  });

  it('verify reports records, the first bad record with its offset and reason', async () => {
    await damagedStore((t) => t.replace('"_id":"b"', '"_id":"B"'));
    const text = readFileSync(journal(), 'utf8');
    const report = verifyStoreDir(dir);
    expect(report).toMatchObject({ clean: false, opens: false });
    expect(report.files).toEqual([
      {
        file: journal(),
        kind: 'journal',
        bytes: text.length,
        records: 1,
        firstBad: {
          record: 2,
          offset: text.indexOf('\n') + 1,
          reason: expect.stringMatching(/^checksum mismatch: stored [0-9a-f]{8}, computed [0-9a-f]{8}$/),
          tornTail: false,
          linesAfter: 2,
          validAfter: 1,
          bytesAfter: text.length - text.indexOf('\n') - 1,
        },
      },
    ]);
  });

  it('verify tells a torn last record (the store repairs it itself) from corruption', async () => {
    await damagedStore((t) => t.slice(0, -7));
    const report = verifyStoreDir(dir);
    expect(report).toMatchObject({ clean: false, opens: true });
    expect(report.files[0].firstBad).toMatchObject({ record: 3, tornTail: true, reason: expect.stringMatching(/^incomplete record/) });
    await (await open()).close();
    expect(verifyStoreDir(dir).clean).toBe(true);
  });

  it('verify finds the stores under a data directory', async () => {
    await damagedStore((t) => t);
    expect(findStoreDirs(path.dirname(dir))).toEqual([dir]);
    expect(findStoreDirs(dir)).toEqual([dir]);
    expect(verifyStoreDir(dir)).toMatchObject({ clean: true, opens: true, files: [{ records: 3 }] });
  });

  it('repair cuts at the first bad record, keeps a backup and reports what it dropped; the store then opens', async () => {
    await damagedStore((t) => t.replace('"_id":"b"', '"_id":"B"'));
    const before = readFileSync(journal());
    const cut = before.indexOf('\n') + 1;
    const report = repairStoreDir(dir, new Date('2024-01-02T03:04:05Z'));
    expect(report).toEqual({
      dir,
      repaired: true,
      truncated: { file: journal(), offset: cut, backup: `${journal()}.bak-2024-01-02T03-04-05-000Z` },
      removedJournals: [],
      droppedRecords: 2,
      droppedValidRecords: 1,
      droppedBytes: before.length - cut,
    });
    expect(readFileSync(report.truncated!.backup)).toEqual(before);
    expect(mode(report.truncated!.backup)).toBe(0o600);
    expect(statSync(journal()).size).toBe(cut);
    expect(verifyStoreDir(dir).clean).toBe(true);
    const s = await open();
    expect(await s.collection('x').find({})).toEqual([{ _id: 'a', secret: 'value-a' }]);
    await s.close();
    expect(repairStoreDir(dir).repaired).toBe(false);
  });

  it('repair moves aside journals written after the damaged one', async () => {
    const s = await open();
    await s.collection('x').insertOne({ _id: 'a' });
    await s.collection('x').insertOne({ _id: 'b' });
    await s.close();
    const first = journal();
    const gen = Number(/^journal-(\d+)\.jsonl$/.exec(path.basename(first))![1]);
    const text = readFileSync(first, 'utf8');
    // A crash during compaction leaves two live journals; the older one is damaged in the middle.
    const second = path.join(dir, `journal-${gen + 1}.jsonl`);
    writeFileSync(second, text.split('\n')[1] + '\n');
    writeFileSync(first, text.replace('"_id":"a"', '"_id":"A"'));
    const report = repairStoreDir(dir);
    expect(report.removedJournals).toEqual([{ file: second, backup: expect.stringContaining(`${second}.bak-`) }]);
    expect(report).toMatchObject({ droppedRecords: 3, droppedValidRecords: 2 });
    const s2 = await open();
    expect(await s2.collection('x').find({})).toEqual([]);
    await s2.close();
  });

  it('repair refuses a store that a live process holds open', async () => {
    await damagedStore((t) => t.replace('"_id":"b"', '"_id":"B"'));
    writeFileSync(path.join(dir, 'LOCK'), String(process.ppid));
    expect(() => repairStoreDir(dir)).toThrow(StoreRepairError);
    expect(() => repairStoreDir(dir)).toThrow(/stop it before repairing/);
  });
});
