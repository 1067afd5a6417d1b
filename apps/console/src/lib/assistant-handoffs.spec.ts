import { handoffActions, handoffFilter } from './assistant-handoffs';

describe('handoff actions', () => {
  it('offers the other statuses from pending and contacted, none from final ones', () => {
    expect(handoffActions('pending')).toEqual(['contacted', 'resolved', 'dismissed']);
    expect(handoffActions('contacted')).toEqual(['resolved', 'dismissed']);
    expect(handoffActions('resolved')).toEqual([]);
    expect(handoffActions('dismissed')).toEqual([]);
  });

  it('reads the status filter from the address, pending by default', () => {
    expect(handoffFilter(null)).toBe('pending');
    expect(handoffFilter('all')).toBe('all');
    expect(handoffFilter('resolved')).toBe('resolved');
    expect(handoffFilter('bogus')).toBe('pending');
  });
});
