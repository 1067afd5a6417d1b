/** Handoff statuses (README "Handoff to a human"): from pending or contacted any status may follow; resolved and dismissed are final. */
export const HANDOFF_STATUSES = ['pending', 'contacted', 'resolved', 'dismissed'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** The actions an operator may take on a handoff in this status (the server answers 409 to any other). */
export function handoffActions(status: string): HandoffStatus[] {
  if (status !== 'pending' && status !== 'contacted') return [];
  return (['contacted', 'resolved', 'dismissed'] as const).filter((s) => s !== status);
}

/** The status filter of the list from the address (`?status=`): one of the statuses or `all`, default `pending`. */
export function handoffFilter(value: string | null): HandoffStatus | 'all' {
  return value === 'all' || (HANDOFF_STATUSES as readonly string[]).includes(value ?? '') ? (value as HandoffStatus | 'all') : 'pending';
}
