/** The grouping fields the usage ledger answers (`GET /admin/llm/usage/by?field=`) that the console charts. */
export const USAGE_FIELDS = ['profileId', 'model', 'flowId', 'userId'] as const;
export type UsageField = (typeof USAGE_FIELDS)[number];

export const USAGE_METRICS = ['calls', 'totalTokens', 'cost'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

export const RANGE_PRESETS = { '1h': 3600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangePreset = keyof typeof RANGE_PRESETS;

export interface UsageGroup {
  key: string | null;
  calls: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: number;
  unpriced: number;
  cost: number | null;
  currency: string | null;
}

/**
 * The range of a preset ending now, or of the two `datetime-local` values (read in the browser's
 * time zone) when the preset is `custom`; undefined when a custom range is incomplete or reversed.
 */
export function usageRange(preset: string, now: Date, customFrom?: string, customTo?: string): { from: string; to: string } | undefined {
  if (preset in RANGE_PRESETS) {
    const span = RANGE_PRESETS[preset as RangePreset];
    return { from: new Date(now.getTime() - span).toISOString(), to: now.toISOString() };
  }
  const from = customFrom ? new Date(customFrom) : undefined;
  const to = customTo ? new Date(customTo) : undefined;
  if (!from || !to || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) return undefined;
  return { from: from.toISOString(), to: to.toISOString() };
}

/** Bars of one metric, largest first, at most `top` (the rest summed as `other`); a null key reads `none`. */
export function usageBars(groups: readonly UsageGroup[], metric: UsageMetric, top = 12, labels = { none: '(none)', other: '(other)' }): Array<{ label: string; value: number }> {
  const bars = groups.map((g) => ({ label: g.key ?? labels.none, value: metric === 'cost' ? (g.cost ?? 0) : g[metric] })).sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
  if (bars.length <= top) return bars;
  const rest = bars.slice(top - 1).reduce((s, b) => s + b.value, 0);
  return [...bars.slice(0, top - 1), { label: labels.other, value: rest }];
}
