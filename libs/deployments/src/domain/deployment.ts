import { type DeploymentAuthMode, type DeploymentRecord, stableVariantOf } from '@flowplane/contracts';

/** One weighted variant (assistant-deployments-profiles.md, Deployment). */
export interface Variant {
  label: string;
  flowId: string;
  /** Pins a version independently of the flow's publish pointer. */
  versionId?: string;
  /** Relative; 0 is declared and never selected. */
  weight: number;
}

/** Who may call a dispatched route. */
export interface RouteAuth {
  mode: DeploymentAuthMode;
  perms?: string[];
}

/**
 * A deployment as stored: the routing record of contracts (`route` comes from `x-route`, else the
 * stable flow's `meta.route`; `auth` defaults to `{mode: authenticated}`) plus its history.
 */
export interface Deployment extends DeploymentRecord {
  variants: Variant[];
  auth?: RouteAuth;
  createdAt: Date;
  updatedAt: Date;
  createdBy: string;
  /**
   * The name and labels the last publish set on an auto-managed deployment. A value that differs
   * from it now is an operator's edit, which the next publish keeps.
   */
  managed?: ManagedState;
}

/** What publishing last wrote on an auto-managed deployment. */
export interface ManagedState {
  name: string;
  labels: Record<string, string>;
}

/** Label keys with a meaning (rules 11 and 17). */
export const Labels = {
  route: 'x-route',
  source: 'x-source',
  templateId: 'x-template-id',
  event: 'x-event',
  eventFilter: 'x-event-filter',
  kind: 'x-kind',
} as const;

/** Labels whose values also surface as tags (issue 6 item 5). */
const TAGGED_LABELS = [Labels.source, Labels.templateId, Labels.event, Labels.kind];
const TAG_PREFIX = 'tag:';

/**
 * Tags derived from labels: `tag:<name>` labels give `<name>` (the key after the prefix; custom
 * tags are set by PATCHing labels), and the values of `x-source`, `x-template-id`, `x-event` and
 * `x-kind` surface too. Sorted, without duplicates or empties.
 */
export function deriveTags(labels: Readonly<Record<string, string>>): string[] {
  const tags = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith(TAG_PREFIX) && key.length > TAG_PREFIX.length) tags.add(key.slice(TAG_PREFIX.length));
    else if (TAGGED_LABELS.includes(key as (typeof TAGGED_LABELS)[number]) && value.trim() !== '') tags.add(value.trim());
  }
  return [...tags].sort();
}

/** The canonical variant whose flow describes the deployment: `stable`, else the heaviest, else the first. */
export function stableVariant(variants: readonly Variant[]): Variant | undefined {
  return stableVariantOf(variants);
}
