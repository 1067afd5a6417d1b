import type { CloudEvent } from '@flowplane/contracts';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { NonRetriableEventError, type ConsumeContext, type EventHandler } from './event-bus.port';

/** An event whose payload fails its class-validator rules: dead-lettered at once, never retried. */
export class InvalidEventPayloadError extends NonRetriableEventError {
  constructor(
    readonly topic: string,
    readonly details: string[],
  ) {
    super(`invalid ${topic} payload: ${details.join('; ')}`);
    this.name = 'InvalidEventPayloadError';
  }
}

/**
 * Wraps `handler` so it only ever sees a payload that passed `payload`'s class-validator rules,
 * as an instance of that class. Unknown properties are stripped rather than rejected: a consumer
 * must keep working when a newer producer adds fields (tolerant reader).
 */
export function validatedHandler<T extends object>(
  payload: ClassConstructor<T>,
  handler: (event: CloudEvent<T>, ctx: ConsumeContext) => Promise<void>,
): EventHandler {
  return async (event, ctx) => {
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new InvalidEventPayloadError(event.type, [
        `payload must be an object, got ${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data}`,
      ]);
    }
    const instance = plainToInstance(payload, data);
    const errors = await validate(instance, { whitelist: true, forbidUnknownValues: true });
    if (errors.length) throw new InvalidEventPayloadError(event.type, flatten(errors));
    await handler({ ...event, data: instance }, ctx);
  };
}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {}))
      out.push(prefix ? `${path}: ${message}` : message);
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}
