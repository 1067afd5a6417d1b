import 'reflect-metadata';

const SENSITIVE_KEYS = Symbol('flowplane:sensitive-env');

/** Marks an env variable as secret: it is masked in logs, banners and validation messages. */
export function Sensitive(): PropertyDecorator {
  return (target, key) => {
    const existing: string[] = Reflect.getMetadata(SENSITIVE_KEYS, target) ?? [];
    Reflect.defineMetadata(SENSITIVE_KEYS, [...existing, String(key)], target);
  };
}

/** Names of the sensitive variables declared by the given env fragments. */
export function sensitiveKeys(...fragments: Array<new () => object>): string[] {
  return fragments.flatMap((f) => (Reflect.getMetadata(SENSITIVE_KEYS, f.prototype) as string[] | undefined) ?? []);
}

/** Masks a secret for display: keeps nothing of short values and only a hint of long ones. */
export function maskSecret(value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  return '********';
}
