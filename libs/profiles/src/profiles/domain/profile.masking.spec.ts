import { MASK_TOKEN } from '@flowplane/contracts';
import { KindRegistry } from '../kinds/kind.registry';
import { TEST_KIND, TEST_SETTINGS } from '../testing/profiles.fixtures';
import { maskConfig } from './profile.masking';

const kind = new KindRegistry([TEST_KIND], TEST_SETTINGS).require('test', 'test-kind');

describe('maskConfig', () => {
  it('masks sensitive values (declared or inherited through setting_ref) and lists them in secretsSet', () => {
    expect(
      maskConfig(kind, { endpoint: 'https://x.test', token: 'sk-1', apiKey: 'key-1', limit: 3 }),
    ).toEqual({
      config: { endpoint: 'https://x.test', token: MASK_TOKEN, apiKey: MASK_TOKEN, limit: 3 },
      secretsSet: ['token', 'apiKey'],
    });
  });

  it('leaves an unset secret unset', () => {
    expect(maskConfig(kind, { endpoint: 'https://x.test' })).toEqual({
      config: { endpoint: 'https://x.test' },
      secretsSet: [],
    });
  });

  it('masks every value when the kind is unknown', () => {
    expect(maskConfig(undefined, { a: 'x', b: 1 }).config).toEqual({ a: MASK_TOKEN, b: MASK_TOKEN });
  });
});
