import { checkBusForLauncher } from './bus-mode';
import { ConfigValidationError } from './load-config';

describe('BUS for a launcher that fixes the bus', () => {
  const refusal = (launcher: 'standalone' | 'split', env: Record<string, string>) => {
    try {
      checkBusForLauncher(launcher, env);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigValidationError);
      return (e as Error).message;
    }
    return undefined;
  };

  it('refuses an unknown value in both modes, as a single service does', () => {
    for (const launcher of ['standalone', 'split'] as const) {
      expect(refusal(launcher, { BUS: 'rabbitmq' })).toMatch(/BUS: BUS must be one of the following values: memory, kafka/);
    }
  });

  it('refuses the bus the launcher cannot run, naming the mode that can', () => {
    expect(refusal('standalone', { BUS: 'kafka' })).toMatch(/BUS=kafka is not available here: .*npm run start:split/);
    expect(refusal('split', { BUS: 'memory' })).toMatch(/BUS=memory is not available here: .*npm start/);
  });

  it('accepts the launcher own bus, an unset BUS and an empty one', () => {
    expect(refusal('standalone', {})).toBeUndefined();
    expect(refusal('standalone', { BUS: 'memory' })).toBeUndefined();
    expect(refusal('standalone', { BUS: '' })).toBeUndefined();
    expect(refusal('split', { BUS: 'kafka' })).toBeUndefined();
  });

  it('checks BUS_MAX_ATTEMPTS too', () => {
    expect(refusal('standalone', { BUS_MAX_ATTEMPTS: 'many' })).toMatch(/BUS_MAX_ATTEMPTS/);
  });
});
