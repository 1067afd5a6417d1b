import { platformServiceUrls, RemoteNodeUrlPolicy } from './remote-node-url.policy';

const allowed = (policy: RemoteNodeUrlPolicy, url: string) => policy.problem(new URL(url)) === undefined;

describe('RemoteNodeUrlPolicy', () => {
  it('allows https anywhere and plain http only to loopback by default', () => {
    const policy = new RemoteNodeUrlPolicy(undefined);
    expect(allowed(policy, 'https://crm.example.com/nodes/lookup')).toBe(true);
    for (const url of ['http://localhost:9000/x', 'http://api.localhost/x', 'http://127.0.0.1:9000/x', 'http://127.8.9.10/x', 'http://[::1]:9000/x', 'http://2130706433/x']) {
      expect([url, allowed(policy, url)]).toEqual([url, true]);
    }
    for (const url of ['http://crm.example.com/x', 'http://10.0.0.5/x', 'http://[::ffff:10.0.0.5]/x', 'http://localhost.evil.com/x']) {
      expect([url, allowed(policy, url)]).toEqual([url, false]);
    }
    expect(policy.problem(new URL('http://crm.example.com/x'))).toContain('invokeUrl must use https');
    expect(policy.problem(new URL('ftp://localhost/x'))).toBe('invokeUrl must use http or https, not ftp');
  });

  it("allows plain http to the platform's own service hosts, read at each check", () => {
    const launcher: Record<string, string> = {};
    const policy = new RemoteNodeUrlPolicy(undefined, () => platformServiceUrls(launcher, { SEARCH_URL: 'http://search:8086', PROFILES_URL: 'not a url' }));
    expect(allowed(policy, 'http://search:8086/internal/nodes/search-query')).toBe(true);
    expect(allowed(policy, 'http://assistant:8084/x')).toBe(false);
    launcher.assistant = 'http://assistant:8084';
    expect(allowed(policy, 'http://assistant:8084/x')).toBe(true);
  });

  it('adds REMOTE_NODE_ALLOWED_HOSTS: names, suffix wildcards, addresses and ranges; * allows all', () => {
    const policy = new RemoteNodeUrlPolicy('crm, *.svc.cluster.local 10.0.0.0/8,192.168.1.7');
    for (const url of ['http://crm/x', 'http://CRM./x', 'http://nodes.shop.svc.cluster.local/x', 'http://10.1.2.3/x', 'http://192.168.1.7/x']) {
      expect([url, allowed(policy, url)]).toEqual([url, true]);
    }
    for (const url of ['http://crm2/x', 'http://svc.cluster.local.evil/x', 'http://192.168.1.8/x']) {
      expect([url, allowed(policy, url)]).toEqual([url, false]);
    }
    expect(allowed(new RemoteNodeUrlPolicy('*'), 'http://anything.example/x')).toBe(true);
    expect(() => new RemoteNodeUrlPolicy('10.0.0.0/99')).toThrow('REMOTE_NODE_ALLOWED_HOSTS');
  });
});
