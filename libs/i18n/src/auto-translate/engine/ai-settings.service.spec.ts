import type { ServiceClients, ServiceConfig, ServiceContext } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { AiSettings } from './ai-settings.service';

function settings(answer: (() => Promise<unknown>) | undefined, env: Record<string, string> = {}) {
  const config = new I18nConfig({ AI_PROFILE: env.AI_PROFILE } as unknown as ServiceConfig);
  const ctx = { env } as unknown as ServiceContext;
  const clients = answer ? ({ for: () => ({ get: answer }) } as unknown as ServiceClients) : undefined;
  return new AiSettings(config, ctx, clients);
}

describe('AiSettings (spec rule 19)', () => {
  it('defaults to the local provider', async () => {
    expect(await settings(undefined).current()).toEqual({ config: { providerID: 'local' } });
  });

  it('takes stored values over this service environment, and the environment over the default', async () => {
    const env = { AI_PROFILE: 'env-profile', AI_PROVIDER: 'ollama', AI_MODEL: 'llama3.2', AI_TEMPERATURE: '0.3' };
    const stored = settings(async () => ({ values: { profile: 'translator', model: 'gpt-4o-mini', provider: 'profiles-env' }, sources: { profile: 'stored', model: 'stored', provider: 'env' } }), env);
    expect(await stored.current()).toEqual({ profileId: 'translator', config: { providerID: 'ollama', model: 'gpt-4o-mini', temperature: 0.3 } });
    const blank = settings(async () => ({ values: {}, sources: {} }), env);
    expect(await blank.current()).toEqual({ profileId: 'env-profile', config: { providerID: 'ollama', model: 'llama3.2', temperature: 0.3 } });
  });

  it('falls back to the environment while the profiles service is unreachable', async () => {
    const down = settings(async () => Promise.reject(new Error('ECONNREFUSED')), { AI_PROVIDER: 'openai' });
    expect(await down.current()).toEqual({ config: { providerID: 'openai' } });
  });
});
