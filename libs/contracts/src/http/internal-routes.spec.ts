import { INTERNAL_PERMS, INTERNAL_ROUTES, internalPermsFor } from './internal-routes';

describe('internalPermsFor', () => {
  it('gives each internal call the one permission of its route group', () => {
    expect(internalPermsFor('profiles', 'GET', '/internal/profiles/llm/llm-chat/p1')).toEqual([INTERNAL_PERMS.profilesResolve]);
    expect(internalPermsFor('profiles', 'GET', '/internal/profiles/llm/llm-chat')).toEqual([INTERNAL_PERMS.profilesList]);
    expect(internalPermsFor('profiles', 'HEAD', '/internal/public-settings')).toEqual([INTERNAL_PERMS.settingsPublic]);
    expect(internalPermsFor('deployments', 'GET', '/internal/deployments/descriptions')).toEqual([INTERNAL_PERMS.deploymentsDescribe]);
    expect(internalPermsFor('deployments', 'POST', '/internal/deployments/route-check')).toEqual([INTERNAL_PERMS.deploymentsRead]);
    expect(internalPermsFor('deployments', 'POST', '/internal/deployments/d1/select')).toEqual([INTERNAL_PERMS.deploymentsSelect]);
    expect(internalPermsFor('flow-runtime', 'PUT', '/internal/nodes/svc/search-query')).toEqual([INTERNAL_PERMS.nodesRegister]);
    expect(internalPermsFor('flow-runtime', 'PUT', '/internal/nodes/crm%2Flookup')).toEqual([INTERNAL_PERMS.nodesRegister]);
    expect(internalPermsFor('search', 'GET', '/internal/info')).toEqual([INTERNAL_PERMS.info]);
  });

  it('gives nothing for another service, method or path', () => {
    expect(internalPermsFor('deployments', 'GET', '/internal/profiles/llm/llm-chat/p1')).toEqual([]);
    expect(internalPermsFor('profiles', 'DELETE', '/internal/profiles/llm/llm-chat/p1')).toEqual([]);
    expect(internalPermsFor('profiles', 'GET', '/internal/profiles/llm/llm-chat/p1/extra')).toEqual([]);
  });

  it('names only declared permissions', () => {
    const perms = new Set<string>(Object.values(INTERNAL_PERMS));
    expect(INTERNAL_ROUTES.filter((r) => !perms.has(r.perm))).toEqual([]);
  });
});
