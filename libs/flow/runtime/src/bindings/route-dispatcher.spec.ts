import { buildRouter } from './route-dispatcher.service';

describe('route dispatcher router', () => {
  const lookup = (routes: Array<[string, string]>, method: string, path: string) => {
    const router = buildRouter(routes.map(([m, p]) => ({ route: { method: m, path: p }, store: { name: `${m} ${p}` } as never })));
    const hit = router.find(method as never, path);
    return hit ? { route: (hit.store as { name: string }).name, params: { ...hit.params } } : undefined;
  };

  it('prefers a static segment to a parameter whatever the order the routes came in', () => {
    const a: Array<[string, string]> = [
      ['GET', '/orders/{id}'],
      ['GET', '/orders/special'],
    ];
    for (const routes of [a, [...a].reverse()]) {
      expect(lookup(routes, 'GET', '/orders/special')).toEqual({ route: 'GET /orders/special', params: {} });
      expect(lookup(routes, 'GET', '/orders/42')).toEqual({ route: 'GET /orders/{id}', params: { id: '42' } });
    }
  });

  it('ranks segment by segment, and falls back to the parameter route when the static branch does not match further', () => {
    const routes: Array<[string, string]> = [
      ['POST', '/a/{x}/c'],
      ['POST', '/a/b/{y}'],
    ];
    expect(lookup(routes, 'POST', '/a/b/z')?.route).toBe('POST /a/b/{y}');
    expect(lookup(routes, 'POST', '/a/b/c')?.route).toBe('POST /a/b/{y}');
    expect(lookup(routes, 'POST', '/a/q/c')).toEqual({ route: 'POST /a/{x}/c', params: { x: 'q' } });
  });

  it('matches by method, ignores trailing and repeated slashes, decodes parameters and keeps colons literal', () => {
    const routes: Array<[string, string]> = [
      ['GET', '/items/{id}'],
      ['GET', '/v1:batch/{id}'],
    ];
    expect(lookup(routes, 'POST', '/items/1')).toBeUndefined();
    expect(lookup(routes, 'GET', '//items/1/')).toEqual({ route: 'GET /items/{id}', params: { id: '1' } });
    expect(lookup(routes, 'GET', '/items/a%2Fb')?.params).toEqual({ id: 'a/b' });
    expect(lookup(routes, 'GET', '/v1:batch/7')?.route).toBe('GET /v1:batch/{id}');
    expect(lookup(routes, 'GET', '/items')).toBeUndefined();
  });
});
