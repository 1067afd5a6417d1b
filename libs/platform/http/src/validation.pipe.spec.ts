import { BadRequestException } from '@nestjs/common';
import { IsEmail, IsOptional, IsString } from 'class-validator';
import { createValidationPipe } from './validation.pipe';

class Contact {
  @IsEmail()
  email!: string;

  @IsOptional()
  @IsString()
  name?: string;
}

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();
  const body = (value: unknown) => pipe.transform(value, { type: 'body', metatype: Contact });

  it('refuses a lone surrogate where a validator would throw, with a 400 naming the field', async () => {
    const err = await body({ email: '\ud800x@example.com' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestException);
    expect((err as BadRequestException).getResponse()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'invalid input: email', details: [{ field: 'email', problems: [expect.stringContaining('well-formed Unicode')] }] });
  });

  it('keeps its usual answers: valid input passes, invalid input lists the fields', async () => {
    await expect(body({ email: 'ada@example.com', name: '\ud83d\ude00' })).resolves.toBeInstanceOf(Contact);
    const err = (await body({ email: 'nope', name: 7 }).catch((e: unknown) => e)) as BadRequestException;
    expect(err.getResponse()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'email' }, { field: 'name' }] });
  });
});
