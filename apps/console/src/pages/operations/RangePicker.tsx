import { useState } from 'react';
import { $t } from '../../i18n';
import { RANGE_PRESETS } from '../../lib/operations-usage';

export interface RangeChoice {
  preset: string;
  from?: string;
  to?: string;
}

/** A time range: a preset ending now, or a custom from/to (local time), checked before it is used. */
export function RangePicker({ value, onChange }: { value: RangeChoice; onChange: (v: RangeChoice) => void }) {
  const [custom, setCustom] = useState({ from: value.from ?? '', to: value.to ?? '' });
  const [problem, setProblem] = useState<string>();
  const presetLabel = (p: string) => {
    switch (p) {
      case '1h':
        return $t('ops.range.1h', 'Last hour');
      case '24h':
        return $t('ops.range.24h', 'Last 24 hours');
      case '7d':
        return $t('ops.range.7d', 'Last 7 days');
      case '30d':
        return $t('ops.range.30d', 'Last 30 days');
      default:
        return $t('ops.range.custom', 'Custom');
    }
  };
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (!custom.from || !custom.to || new Date(custom.from) >= new Date(custom.to)) {
          setProblem($t('ops.range.bad', 'Give a start before the end.'));
          return;
        }
        setProblem(undefined);
        onChange({ preset: 'custom', ...custom });
      }}
    >
      <label htmlFor="range-preset">{$t('ops.range.label', 'Range')}</label>
      <select id="range-preset" value={value.preset} onChange={(e) => (e.target.value === 'custom' ? onChange({ preset: 'custom', ...custom }) : onChange({ preset: e.target.value }))}>
        {[...Object.keys(RANGE_PRESETS), 'custom'].map((p) => (
          <option key={p} value={p}>
            {presetLabel(p)}
          </option>
        ))}
      </select>
      {value.preset === 'custom' ? (
        <>
          <label htmlFor="range-from">{$t('ops.range.from', 'From')}</label>
          <input id="range-from" type="datetime-local" value={custom.from} onChange={(e) => setCustom({ ...custom, from: e.target.value })} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'range-error' : undefined} />
          <label htmlFor="range-to">{$t('ops.range.to', 'To')}</label>
          <input id="range-to" type="datetime-local" value={custom.to} onChange={(e) => setCustom({ ...custom, to: e.target.value })} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'range-error' : undefined} />
          <button type="submit">{$t('ops.range.apply', 'Apply')}</button>
          {problem ? (
            <span id="range-error" className="field-error">
              {problem}
            </span>
          ) : null}
        </>
      ) : null}
    </form>
  );
}
