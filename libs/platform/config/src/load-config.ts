import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, type ValidationError, validateSync } from 'class-validator';
import { maskSecret, sensitiveKeys } from './sensitive.decorator';

type Fragment = new () => object;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The config object built from a list of env fragments. */
export type ConfigOf<F extends readonly Fragment[]> = UnionToIntersection<InstanceType<F[number]>>;

/** One invalid environment variable and why. */
export interface ConfigProblem {
  variable: string;
  problems: string[];
}

/** Thrown by `loadConfig` with every invalid variable at once. */
export class ConfigValidationError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      `Invalid configuration (${problems.length} variable${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p.variable}: ${p.problems.join('; ')}`).join('\n'),
    );
    this.name = 'ConfigValidationError';
  }
}

function flatten(errors: ValidationError[], secret: Set<string>): ConfigProblem[] {
  return errors.map((e) => ({
    variable: e.property,
    problems: Object.values(e.constraints ?? {}).map((m) =>
      // class-validator messages never embed the value, but custom ones might; never echo secrets.
      secret.has(e.property) ? m.replace(String(e.value), maskSecret(e.value)) : m,
    ),
  }));
}

/**
 * Builds a config object from env fragments (each a class-validator class with defaults),
 * validating all of them and reporting every invalid variable at once.
 */
export function loadConfig<F extends readonly Fragment[]>(
  fragments: F,
  env: Record<string, string | undefined> = process.env,
): ConfigOf<F> {
  // Empty strings mean "unset", as in most twelve-factor tooling.
  const plain = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const secret = new Set(sensitiveKeys(...fragments));
  const merged: Record<string, unknown> = {};
  const views: object[] = [];
  for (const F of fragments) {
    const own = declaredKeys(F);
    const inst = plainToInstance(F, pick(plain, own));
    views.push(inst);
    for (const k of own) if ((inst as Record<string, unknown>)[k] !== undefined) merged[k] = (inst as Record<string, unknown>)[k];
  }
  // Validate after merging so cross-fragment conditions (BUS=kafka needs KAFKA_BROKERS) see every default.
  const problems: ConfigProblem[] = [];
  for (const [i, F] of fragments.entries()) {
    const view = Object.assign(Object.create(F.prototype) as object, merged, views[i]);
    problems.push(...flatten(validateSync(view, { forbidUnknownValues: false }), secret));
  }
  const unique = dedupe(problems);
  if (unique.length) throw new ConfigValidationError(unique);
  return merged as ConfigOf<F>;
}

function pick(obj: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, (obj as Record<string, unknown>)[k]]));
}

/** The variables a fragment declares: every property carrying a class-validator decorator. */
function declaredKeys(F: Fragment): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(F, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}

function dedupe(problems: ConfigProblem[]): ConfigProblem[] {
  const byVar = new Map<string, Set<string>>();
  for (const p of problems) {
    const set = byVar.get(p.variable) ?? new Set<string>();
    p.problems.forEach((m) => set.add(m));
    byVar.set(p.variable, set);
  }
  return [...byVar].map(([variable, set]) => ({ variable, problems: [...set] }));
}

/** A copy of the config with sensitive values masked, for logs and banners. */
export function redactConfig<T extends object>(config: T, fragments: readonly Fragment[]): Record<string, unknown> {
  const secret = new Set(sensitiveKeys(...fragments));
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, secret.has(k) ? maskSecret(v) : v]));
}
