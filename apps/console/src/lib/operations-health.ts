/** One service's row of the health page, from the gateway's aggregate (`GET /api/v1/health`, 200 or 503). */
export interface HealthRow {
  service: string;
  up: boolean;
  reason?: string;
  /** Check name → status word (`up`, `down`, or the check's message). */
  checks: Record<string, string>;
  /** The bus check's figures where the service reports them. */
  busLag?: number;
  busConsumers?: number;
}

/** The rows of an aggregate health body (either answer: `{status, services}` or the 503 error body with `services`). */
export function healthRows(body: unknown): HealthRow[] {
  const services = body && typeof body === 'object' ? (body as { services?: unknown }).services : undefined;
  if (!services || typeof services !== 'object') return [];
  return Object.entries(services as Record<string, unknown>)
    .map(([service, v]) => {
      const s = (v ?? {}) as { status?: unknown; reason?: unknown; checks?: unknown };
      const checks: Record<string, string> = {};
      let busLag: number | undefined;
      let busConsumers: number | undefined;
      if (s.checks && typeof s.checks === 'object') {
        for (const [name, c] of Object.entries(s.checks as Record<string, unknown>)) {
          const check = (c ?? {}) as Record<string, unknown>;
          checks[name] = typeof check['status'] === 'string' ? check['status'] : typeof check['message'] === 'string' ? check['message'] : 'down';
          if (name === 'bus') {
            if (typeof check['lag'] === 'number') busLag = check['lag'];
            if (typeof check['consumers'] === 'number') busConsumers = check['consumers'];
          }
        }
      }
      return { service, up: s.status === 'up', ...(typeof s.reason === 'string' ? { reason: s.reason } : {}), checks, ...(busLag !== undefined ? { busLag } : {}), ...(busConsumers !== undefined ? { busConsumers } : {}) };
    })
    .sort((a, b) => Number(a.up) - Number(b.up) || a.service.localeCompare(b.service));
}
