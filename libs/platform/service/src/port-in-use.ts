/** A listener that could not bind because its port is taken, told in one line for the operator. */
export class PortInUseError extends Error {
  constructor(
    readonly service: string,
    readonly port: number,
    /** The variable that chose the port: the one to change. */
    readonly variable: 'PORT' | 'METRICS_PORT',
    message: string,
  ) {
    super(message);
    this.name = 'PortInUseError';
  }
}

/** The port of a listen that failed because the port is taken (EADDRINUSE), else undefined. */
export function portInUse(e: unknown): number | undefined {
  const err = e as { code?: unknown; port?: unknown } | undefined;
  return err?.code === 'EADDRINUSE' && typeof err.port === 'number' ? err.port : undefined;
}

/** Which variable chose `port` for a service started with `env`: METRICS_PORT when it names it, else PORT. */
export function portVariable(port: number, env: Record<string, string | undefined>): 'PORT' | 'METRICS_PORT' {
  return env.METRICS_PORT !== undefined && Number(env.METRICS_PORT) === port ? 'METRICS_PORT' : 'PORT';
}

/**
 * The busy-port error of one service started on its own: names the port and the variable to
 * change. `e` is returned unchanged when it is not a busy port.
 */
export function asPortInUse(e: unknown, service: string, env: Record<string, string | undefined>): unknown {
  const port = portInUse(e);
  if (port === undefined) return e;
  const variable = portVariable(port, env);
  return new PortInUseError(service, port, variable, `port ${port} is already in use (another process listens on it): set ${variable} to a free port`);
}
