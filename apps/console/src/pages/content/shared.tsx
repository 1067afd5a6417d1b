import { $t } from '../../i18n';
import type { UnitState } from '../../lib/content-state';
import { href, Link } from '../../router';

export type Translation = {
  translationReady: boolean;
  sourceHash: string | null;
  currentSourceHash: string;
  stale: boolean;
  retranslate: boolean;
  units: Array<{ unit: string; hash: string; locales: string[] }> | null;
  reviewRequired: boolean;
  pending: Array<{ unit: string; locale: string; text: string; hash: string; at: string }>;
  locales: Record<string, UnitState>;
};
export type PageView = {
  slug: string;
  title: Record<string, string>;
  body: Record<string, string>;
  seo: { title?: Record<string, string>; description?: Record<string, string> };
  translation: Translation;
  seededFrom?: string;
  /** Null for a record stored without its times. */
  createdAt: string | null;
  updatedAt: string | null;
};
export type FragmentView = { key: string; data: unknown; translation: Translation; createdAt: string | null; updatedAt: string | null };
export type RunReport = {
  translated: number;
  failed: Array<{ type: string; id: string; unit: string; locale: string; reason: string }>;
  pending: number;
  skipped: Array<{ type: string; id: string; reason: string }>;
  reason: 'nothing_to_do' | 'budget_exhausted' | 'waiting_for_quiet' | null;
  remaining: number;
  records: number;
  memoryHits: number;
  dryRun?: boolean;
};

export function stateLabel(s: UnitState): string {
  switch (s) {
    case 'current':
      return $t('content.state.current', 'current');
    case 'stale':
      return $t('content.state.stale', 'stale');
    case 'missing':
      return $t('content.state.missing', 'missing');
    case 'pending':
      return $t('content.state.pending', 'pending review');
  }
}

export function reasonLabel(r: RunReport['reason']): string {
  switch (r) {
    case 'nothing_to_do':
      return $t('content.reason.nothing', 'nothing to do');
    case 'budget_exhausted':
      return $t('content.reason.budget', 'stopped at the budget; run again to continue');
    case 'waiting_for_quiet':
      return $t('content.reason.quiet', 'waiting for edits to settle (quiet period)');
    default:
      return $t('content.reason.worked', 'work done');
  }
}

/** Translation state of every unit (rows) in every locale (columns) of a page or fragment. */
export function UnitStatesTable({ states, codes }: { states: Array<{ unit: string; states: Record<string, UnitState> }>; codes: string[] }) {
  return (
    <table className="units">
      <caption>{$t('content.unitsCaption', 'Translation state per unit')}</caption>
      <thead>
        <tr>
          <th scope="col">{$t('content.unit', 'Unit')}</th>
          {codes.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {states.map((u) => (
          <tr key={u.unit}>
            <th scope="row">
              <code>{u.unit}</code>
            </th>
            {codes.map((c) => (
              <td key={c} className={`unit-${u.states[c]}`} data-unit={u.unit} data-locale={c}>
                {stateLabel(u.states[c])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One line saying what a translation run did. */
export function RunSummary({ report }: { report: RunReport }) {
  return (
    <div role="status" className="run-report">
      <p>
        {report.dryRun ? `${$t('content.run.dry', 'Dry run:')} ` : ''}
        {$t('content.run.summary', '{translated} translated, {pending} held for review, {failed} failed, {remaining} remaining, {memory} from memory; {reason}', {
          translated: report.translated,
          pending: report.pending,
          failed: report.failed.length,
          remaining: report.remaining,
          memory: report.memoryHits,
          reason: reasonLabel(report.reason),
        })}
      </p>
      {report.skipped.length ? (
        <p className="muted small">
          {$t('content.run.skipped', 'Skipped: {list}', { list: report.skipped.map((s) => `${s.id} (${s.reason})`).join(', ') })}
        </p>
      ) : null}
      {report.failed.length ? (
        <ul className="problems">
          {report.failed.map((f) => (
            <li key={`${f.id}-${f.unit}-${f.locale}`}>
              {f.id} {f.unit} ({f.locale}): {f.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function ContentTabs({ current }: { current: string }) {
  const tabs: Array<[string, string]> = [
    ['list', $t('content.tab.list', 'Pages and fragments')],
    ['review', $t('content.tab.review', 'Review queue')],
  ];
  return (
    <nav className="tabs" aria-label={$t('content.tabs', 'Content sections')}>
      {tabs.map(([id, label]) => (
        <Link key={id} to={href(id === 'list' ? ['content'] : ['content', id])} ariaCurrent={current === id}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
