import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';

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

/** The platform's DTO validation: whitelist, forbid unknown fields, transform; 400 lists every failing field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new BadRequestException({ code: 'VALIDATION_FAILED', message: `invalid input: ${details.map((d) => d.field).join(', ')}`, details });
    },
  });
}
