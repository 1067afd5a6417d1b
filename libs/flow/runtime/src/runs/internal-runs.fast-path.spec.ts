import { createValidationPipe } from '@flowplane/platform/http';
import { byteLimit } from '@flowplane/platform/service';
import { plainlyValid } from './internal-runs.fast-path';
import { InternalStartRunDto } from './runs.controller';

describe('internal runs fast path: its own check of the body', () => {
  const pipe = createValidationPipe();
  const accepted = (body: unknown) =>
    pipe.transform(body, { type: 'body', metatype: InternalStartRunDto, data: undefined }).then(
      () => true,
      () => false,
    );

  it('passes at once only bodies the validation pipe accepts, and leaves the rest to the pipe', async () => {
    const bodies: unknown[] = [
      { flowId: 'a' },
      { flowId: 'a', versionId: 'a@v1', input: { x: [1] }, meta: { k: 'v' }, startedBy: 'user:u', events: ['token'] },
      { flowId: 'a', input: null, meta: null, versionId: null, startedBy: null, events: null },
      { flowId: 'a', input: 'text' },
      {},
      { flowId: 1 },
      { flowId: 'f'.repeat(201) },
      { flowId: 'f'.repeat(200) },
      { flowId: 'a', extra: true },
      { flowId: 'a', meta: [] },
      { flowId: 'a', meta: 'x' },
      { flowId: 'a', versionId: 'v'.repeat(251) },
      { flowId: 'a', startedBy: 's'.repeat(301) },
      { flowId: 'a', events: 'token' },
      { flowId: 'a', events: [1] },
      { flowId: 'a', events: Array.from({ length: 51 }, () => 'x') },
      { flowId: 'a', events: ['e'.repeat(101)] },
      // class-validator counts a surrogate pair as one character: the pipe decides these.
      { flowId: '😀'.repeat(150) },
      [],
      'a',
      null,
    ];
    for (const body of bodies) {
      const own = plainlyValid(body);
      const pipe = await accepted(structuredClone(body));
      // Never more lenient than the pipe; where it says no, the pipe answers.
      if (own) expect({ body, pipe }).toEqual({ body, pipe: true });
    }
    expect(plainlyValid({ flowId: 'a' })).toBe(true);
    expect(plainlyValid({ flowId: 'a', versionId: 'a@v1', input: { x: [1] }, meta: { k: 'v' }, startedBy: 'user:u', events: ['token'] })).toBe(true);
  });

  it('reads HTTP_BODY_LIMIT as body-parser does for the usual spellings, and gives up on others', () => {
    expect(byteLimit('1mb')).toBe(1024 * 1024);
    expect(byteLimit('100kb')).toBe(100 * 1024);
    expect(byteLimit('512')).toBe(512);
    expect(byteLimit(2048)).toBe(2048);
    expect(byteLimit('1.5MB')).toBe(1.5 * 1024 * 1024);
    expect(byteLimit('lots')).toBeUndefined();
    expect(byteLimit(undefined)).toBeUndefined();
  });
});
