import { normalizeRoute, parseRouteLabel, routeDeploymentId, routeKey, RouteMatcher, routeProblem, subscriberDeploymentId } from './route-key';

describe('route keys', () => {
  it('compares parameters by position, ignores case of the method and trailing or repeated slashes', () => {
    expect(routeKey({ method: 'get', path: '/orders/{id}' })).toBe(routeKey({ method: 'GET', path: '/orders/{orderId}/' }));
    expect(routeKey({ method: 'POST', path: '//orders//{id}' })).toBe('POST /orders/{}');
    expect(routeKey({ method: 'GET', path: '/orders/{id}' })).not.toBe(routeKey({ method: 'POST', path: '/orders/{id}' }));
    expect(routeKey({ method: 'GET', path: '/orders/{id}' })).not.toBe(routeKey({ method: 'GET', path: '/orders/items' }));
    expect(routeKey({ method: 'GET', path: '/' })).toBe('GET /');
  });

  it('normalises the display form and parses x-route labels', () => {
    expect(normalizeRoute({ method: 'post', path: '/orders/{id}/items/' })).toEqual({ method: 'POST', path: '/orders/{id}/items' });
    expect(parseRouteLabel('post /orders/{id}')).toEqual({ method: 'POST', path: '/orders/{id}' });
    expect(parseRouteLabel('orders')).toBeUndefined();
    expect(parseRouteLabel(undefined)).toBeUndefined();
  });

  it('reports bad methods, relative paths, bad segments and repeated parameters', () => {
    expect(routeProblem({ method: 'GET', path: '/orders/{id}' })).toBeUndefined();
    expect(routeProblem({ method: 'FETCH', path: '/x' })).toMatch(/method/);
    expect(routeProblem({ method: 'GET', path: 'orders' })).toMatch(/start with/);
    expect(routeProblem({ method: 'GET', path: '/a b' })).toMatch(/segment/);
    expect(routeProblem({ method: 'GET', path: '/a/{id}/b/{id}' })).toMatch(/twice/);
  });

  it('makes the deterministic ids of auto-managed deployments', () => {
    expect(routeDeploymentId({ method: 'POST', path: '/orders/{id}/items' })).toBe('route-post-orders-id-items');
    expect(routeDeploymentId({ method: 'get', path: '/Orders_Report/' })).toBe('route-get-orders-report');
    expect(subscriberDeploymentId('i18n/translate-sweep')).toBe('subscriber-i18n-translate-sweep');
  });

  it('matches request paths and captures decoded parameters', () => {
    const m = new RouteMatcher({ method: 'GET', path: '/orders/{id}/items/{item}' });
    expect(m.match('/orders/42/items/a%20b')).toEqual({ id: '42', item: 'a b' });
    expect(m.match('/orders/42/items/x/')).toEqual({ id: '42', item: 'x' });
    expect(m.match('/orders/42/items')).toBeUndefined();
    expect(m.match('/orders/42/things/x')).toBeUndefined();
    expect(m.match('/orders/%E0%A4%A/items/x')).toBeUndefined();
  });
});
