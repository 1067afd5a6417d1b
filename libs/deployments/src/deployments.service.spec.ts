import { overlaps } from './deployments.service';

describe('routes flow-runtime answers itself', () => {
  it('overlap when one request could match both: same method (or ALL), same length, segments equal or a parameter on either side', () => {
    expect(overlaps({ method: 'GET', path: '/flows/templates' }, { method: 'GET', path: '/flows/{id}' })).toBe(true);
    expect(overlaps({ method: 'GET', path: '/flows/{x}/versions' }, { method: 'GET', path: '/flows/{id}/versions' })).toBe(true);
    expect(overlaps({ method: 'POST', path: '/runs/abc/cancel' }, { method: 'POST', path: '/runs/:runId/cancel' })).toBe(true);
    expect(overlaps({ method: 'PUT', path: '/anything' }, { method: 'ALL', path: '/{x}' })).toBe(true);
  });

  it('do not overlap across methods, lengths or different literals', () => {
    expect(overlaps({ method: 'POST', path: '/flows/{id}' }, { method: 'GET', path: '/flows/{id}' })).toBe(false);
    expect(overlaps({ method: 'GET', path: '/flows/{id}/special' }, { method: 'GET', path: '/flows/{id}/versions' })).toBe(false);
    expect(overlaps({ method: 'GET', path: '/flows/a/b/c/d' }, { method: 'GET', path: '/flows/{id}' })).toBe(false);
  });
});
