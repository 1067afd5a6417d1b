import { type FillReport, type FillRequest, FillTranslations, NO_USAGE } from '../auto-translate/auto-translate.ports';
import { fillRequestOf, fillTranslationsStep } from './fill-translations.step';

const REPORT: FillReport = { keysProcessed: 2, localesFilled: 5, skippedProtected: 1, held: 1, failed: [{ key: 'b', locale: 'fr', reason: 'dropped {name}' }], remaining: 3, memoryHits: 2, usage: { ...NO_USAGE, calls: 2, totalTokens: 300 } };

class RecordingFill extends FillTranslations {
  readonly requests: FillRequest[] = [];
  async run(request: FillRequest): Promise<FillReport> {
    this.requests.push(request);
    return REPORT;
  }
}

describe('i18n/fill-translations step', () => {
  it("fills the event's keys in the event's namespace, never overwriting (rule 8)", async () => {
    const fill = new RecordingFill();
    const answer = await fillTranslationsStep({ runId: 'r1', config: { mode: 'missing_and_stale', overwrite: true, includeProtected: true }, packet: { keys: ['home.title', 'home.cta'], ns: 'shop', reason: 'source_changed' } }, fill, 123);
    expect(fill.requests).toHaveLength(1);
    expect(fill.requests[0]).toMatchObject({ mode: 'missing_and_stale', keys: ['home.title', 'home.cta'], ns: 'shop', review: true, limit: 200, deadline: 123, overwrite: false, includeProtected: false, usageContext: { purpose: 'node', runId: 'r1' } });
    expect(fill.requests[0].allKeys).toBeUndefined();
    // No outputs: the branch ends; the report goes to the run log, as a warning when cells failed.
    expect(answer.outputs).toEqual([]);
    expect(answer.logs).toEqual([{ level: 'warn', message: expect.stringContaining('2 key(s) processed, 5 locale(s) filled, 2 from translation memory, 1 held for review, 1 failed'), data: expect.objectContaining({ keysProcessed: 2, remaining: 3, failed: REPORT.failed }) }]);
  });

  it('prefers the keys setting to the event, and reads all_keys only when both are empty', () => {
    expect(fillRequestOf({ config: { keys: 'a,b' }, packet: { keys: ['c'] } })).toMatchObject({ request: { keys: ['a', 'b'] } });
    expect(fillRequestOf({ config: { keys: 'a,b' }, packet: { keys: ['c'] } })).not.toHaveProperty('request.ns');
    expect(fillRequestOf({ config: { all_keys: true, limit: '200', mode: 'missing_and_stale' }, packet: { firedAt: '2026-11-25T03:30:00Z', scheduleId: 'i18n-translate-sweep' } })).toEqual({
      request: expect.objectContaining({ allKeys: true, limit: 200, mode: 'missing_and_stale' }),
    });
    // The event's keys win over all_keys: an on-change flow with all_keys on still translates only what changed.
    expect(fillRequestOf({ config: { all_keys: true }, packet: { keys: { 0: 'x' } } })).toMatchObject({ request: { keys: ['x'], ns: '' } });
  });

  it('does nothing, and says why, without keys and without all_keys', async () => {
    const fill = new RecordingFill();
    const answer = await fillTranslationsStep({ config: {}, packet: { firedAt: '2026-11-25T03:30:00Z' } }, fill);
    expect(fill.requests).toEqual([]);
    expect(answer).toEqual({ outputs: [], logs: [{ level: 'info', message: expect.stringContaining('all_keys is off') }] });
  });

  it('refuses a config it cannot read, naming the setting', async () => {
    await expect(fillTranslationsStep({ config: { limit: 'lots' } }, new RecordingFill())).rejects.toThrow('limit must be a whole number');
  });
});
