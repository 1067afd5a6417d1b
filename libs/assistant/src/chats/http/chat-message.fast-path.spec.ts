import { createValidationPipe } from '@flowplane/platform/http';
import { SendMessageDto } from '../dto/send-message.dto';
import { plainlyValid } from './chat-message.fast-path';

describe('chat message fast path: its own check of the body', () => {
  it('passes at once only bodies the validation pipe accepts, and leaves the rest to the pipe', async () => {
    const pipe = createValidationPipe();
    const accepted = (body: unknown) =>
      pipe.transform(body, { type: 'body', metatype: SendMessageDto, data: undefined }).then(
        () => true,
        () => false,
      );
    const bodies: unknown[] = [
      { message: 'hi' },
      { message: '', sessionId: 'abcdefgh', meta: { intent: 'handoff' } },
      { message: 'hi', sessionId: 'short' },
      { message: 'hi', sessionId: null },
      { message: 'hi', sessionId: 'a'.repeat(129) },
      { message: 'hi', meta: null },
      { message: 'hi', meta: [] },
      { message: 'hi', meta: 'x' },
      { message: 'hi', other: 1 },
      { message: 1 },
      {},
      [],
      null,
    ];
    const passed: unknown[] = [];
    for (const body of bodies) {
      if (!plainlyValid(body)) continue;
      passed.push(body);
      expect({ body, pipe: await accepted(structuredClone(body)) }).toEqual({ body, pipe: true });
    }
    expect(passed).toEqual([{ message: 'hi' }, { message: '', sessionId: 'abcdefgh', meta: { intent: 'handoff' } }]);
  });
});
