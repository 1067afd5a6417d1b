import { apiPrefixOwner, reservedApiPathOwner } from './api-paths';

describe('API path owners', () => {
  it('gives the longest prefix its service', () => {
    expect(apiPrefixOwner('/admin/profiles/x')).toBe('profiles');
    expect(apiPrefixOwner('/admin/llm/usage')).toBe('flow-runtime');
    expect(apiPrefixOwner('/flows')).toBe('flow-runtime');
    expect(apiPrefixOwner('/flowsheets')).toBeUndefined();
    expect(apiPrefixOwner('/orders/1')).toBeUndefined();
  });

  it('reserves the gateway paths, the service probes and the prefixes of services other than flow-runtime', () => {
    expect(reservedApiPathOwner('/openapi.json')).toBe('gateway');
    expect(reservedApiPathOwner('/health/')).toBe('gateway');
    expect(reservedApiPathOwner('/search/healthz')).toBe('gateway');
    expect(reservedApiPathOwner('/{service}/readyz')).toBe('gateway');
    expect(reservedApiPathOwner('/search/status')).toBe('search');
    expect(reservedApiPathOwner('/deployments/{id}/extra')).toBe('deployments');
    expect(reservedApiPathOwner('/pages/{slug}')).toBe('i18n');
    // flow-runtime's space: its own controller routes are checked against flow-runtime itself.
    expect(reservedApiPathOwner('/flows/templates')).toBeUndefined();
    expect(reservedApiPathOwner('/orders/{id}/healthz')).toBeUndefined();
    expect(reservedApiPathOwner('/{a}/{b}')).toBeUndefined();
  });
});
