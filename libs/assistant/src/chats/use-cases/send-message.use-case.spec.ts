import { SESSION_ID_PATTERN } from '../domain/chat.entity';
import { newSessionId } from './send-message.use-case';

describe('newSessionId', () => {
  it('gives distinct well-formed ids of 128 bits across refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, () => newSessionId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(SESSION_ID_PATTERN);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    }
  });
});
