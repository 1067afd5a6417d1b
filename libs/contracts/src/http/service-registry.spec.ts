import {
  isServiceName,
  SERVICE_NAMES,
  SERVICE_PORTS,
  serviceUrl,
  serviceUrlEnvVar,
} from './service-registry';

describe('service registry', () => {
  it('lists the eight services with distinct ports 8080-8087', () => {
    expect(SERVICE_NAMES).toEqual([
      'gateway',
      'flow-runtime',
      'deployments',
      'profiles',
      'assistant',
      'i18n',
      'search',
      'hub',
    ]);
    expect(SERVICE_NAMES.map((s) => SERVICE_PORTS[s])).toEqual([
      8080, 8081, 8082, 8083, 8084, 8085, 8086, 8087,
    ]);
    expect(Object.keys(SERVICE_PORTS).sort()).toEqual([...SERVICE_NAMES].sort());
  });

  it('derives the URL variable from the service name', () => {
    expect(serviceUrlEnvVar('profiles')).toBe('PROFILES_URL');
    expect(serviceUrlEnvVar('flow-runtime')).toBe('FLOW_RUNTIME_URL');
    expect(serviceUrlEnvVar('i18n')).toBe('I18N_URL');
  });

  it('reads the variable and strips trailing slashes', () => {
    expect(serviceUrl('profiles', { PROFILES_URL: 'http://profiles:8083/' })).toBe('http://profiles:8083');
    expect(serviceUrl('profiles', { PROFILES_URL: '  https://p.internal/base//  ' })).toBe(
      'https://p.internal/base',
    );
  });

  it('defaults to localhost with the service port when unset or blank', () => {
    expect(serviceUrl('profiles', {})).toBe('http://localhost:8083');
    expect(serviceUrl('hub', { HUB_URL: '   ' })).toBe('http://localhost:8087');
  });

  it('reads process.env by default', () => {
    const before = process.env.SEARCH_URL;
    process.env.SEARCH_URL = 'http://search:8086';
    try {
      expect(serviceUrl('search')).toBe('http://search:8086');
    } finally {
      if (before === undefined) delete process.env.SEARCH_URL;
      else process.env.SEARCH_URL = before;
    }
  });

  it('fails fast, naming the variable, on malformed URLs', () => {
    expect(() => serviceUrl('profiles', { PROFILES_URL: 'profiles:8083' })).toThrow(/PROFILES_URL/);
    expect(() => serviceUrl('profiles', { PROFILES_URL: 'not a url' })).toThrow(
      /PROFILES_URL is not a valid URL/,
    );
  });

  it('recognises service names', () => {
    expect(isServiceName('deployments')).toBe(true);
    expect(isServiceName('standalone')).toBe(false);
  });
});
