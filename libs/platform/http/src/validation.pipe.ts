import { type ArgumentMetadata, BadRequestException, HttpException, ValidationPipe, type ValidationError } from '@nestjs/common';

export interface FieldProblem {
  field: string;
  problems: string[];
}

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const own = e.constraints ? [{ field, problems: Object.values(e.constraints) }] : [];
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string in `value` that is not well-formed Unicode (a lone surrogate), if any. */
function illFormedField(value: unknown, prefix = '', depth = 0): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? prefix || 'value' : undefined;
  if (typeof value !== 'object' || value === null || depth > 100) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const hit = illFormedField(v, prefix ? `${prefix}.${k}` : k, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * Some validators of validator.js (`IsEmail`, `IsByteLength`, ...) measure bytes with encodeURI,
 * which throws on a lone surrogate (`"\ud800"` is valid JSON); that input is refused with the usual
 * 400 instead of the error escaping as a 500.
 */
class PlatformValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (e) {
      const field = e instanceof HttpException ? undefined : illFormedField(value);
      if (field === undefined) throw e;
      throw new BadRequestException({ code: 'VALIDATION_FAILED', message: `invalid input: ${field}`, details: [{ field, problems: [`${field} must be well-formed Unicode (no lone surrogate)`] }] });
    }
  }
}

/** The platform's DTO validation: whitelist, forbid unknown fields, transform; 400 lists every failing field. */
export function createValidationPipe(): ValidationPipe {
  return new PlatformValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new BadRequestException({ code: 'VALIDATION_FAILED', message: `invalid input: ${details.map((d) => d.field).join(', ')}`, details });
    },
  });
}
