import { JSONSchema } from 'class-validator-jsonschema';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

// class-validator has no decorator for "object whose values are all strings" (labels, tags maps),
// so this one is written by hand.

/** Validates a plain object whose own values are all strings (a `map string to string` of the spec). */
export function IsStringRecord(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    // The schema generator (AsyncAPI) cannot see through a custom validator: state the shape directly.
    JSONSchema(() => ({ type: 'object', additionalProperties: { type: 'string' } }))(target, String(propertyName));
    registerDecorator({
      name: 'isStringRecord',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be an object mapping strings to strings`,
        ...options,
      },
      validator: {
        validate(value: unknown): boolean {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
          return Object.values(value as Record<string, unknown>).every((v) => typeof v === 'string');
        },
      },
    });
  };
}
