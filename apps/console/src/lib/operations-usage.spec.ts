import { usageBars, usageRange, type UsageGroup } from './operations-usage';

const g = (key: string | null, calls: number, cost: number | null = null): UsageGroup => ({ key, calls, errors: 0, promptTokens: calls * 10, completionTokens: calls, totalTokens: calls * 11, estimated: 0, unpriced: cost === null ? calls : 0, cost, currency: cost === null ? null : 'USD' });

describe('usage range', () => {
  const now = new Date('2026-11-26T12:00:00Z');

  it('ends a preset now', () => {
    expect(usageRange('24h', now)).toEqual({ from: '2026-11-25T12:00:00.000Z', to: '2026-11-26T12:00:00.000Z' });
    expect(usageRange('1h', now)?.from).toBe('2026-11-26T11:00:00.000Z');
  });

  it('takes a custom range only when complete and in order', () => {
    expect(usageRange('custom', now, '2026-11-01T00:00Z', '2026-11-02T00:00Z')).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' });
    expect(usageRange('custom', now, '2026-11-02T00:00Z', '2026-11-01T00:00Z')).toBeUndefined();
    expect(usageRange('custom', now, '', '2026-11-01T00:00Z')).toBeUndefined();
  });
});

describe('usage bars', () => {
  it('sorts by the metric, names a missing key, and counts an unpriced cost as 0', () => {
    expect(usageBars([g('a', 1, 0.5), g(null, 3), g('b', 2, 0.1)], 'calls')).toEqual([
      { label: '(none)', value: 3 },
      { label: 'b', value: 2 },
      { label: 'a', value: 1 },
    ]);
    expect(usageBars([g('a', 1, 0.5), g(null, 3), g('b', 2, 0.1)], 'cost').map((b) => b.value)).toEqual([0.5, 0.1, 0]);
  });

  it('sums what is beyond the top bars as other', () => {
    const bars = usageBars([g('a', 5), g('b', 4), g('c', 3), g('d', 2)], 'totalTokens', 3);
    expect(bars).toEqual([
      { label: 'a', value: 55 },
      { label: 'b', value: 44 },
      { label: '(other)', value: 55 },
    ]);
  });
});
