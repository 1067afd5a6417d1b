import { nextCopyId } from './copy-id';

describe('nextCopyId', () => {
  it('picks <src>-copy first, then -copy-2, -3, ...', () => {
    expect(nextCopyId('prod', [])).toBe('prod-copy');
    expect(nextCopyId('prod', ['prod-copy'])).toBe('prod-copy-2');
    expect(nextCopyId('prod', ['prod-copy', 'prod-copy-2'])).toBe('prod-copy-3');
  });

  it('counts up from the highest number in use and ignores look-alikes', () => {
    expect(nextCopyId('prod', ['prod-copy', 'prod-copy-7', 'prod-copy-3'])).toBe('prod-copy-8');
    expect(nextCopyId('prod', ['prod-copy', 'prod-copy-x', 'prod-copy-02', 'prod-copy-2b'])).toBe(
      'prod-copy-2',
    );
  });

  it('reuses <src>-copy when it is free again', () => {
    expect(nextCopyId('prod', ['prod-copy-2'])).toBe('prod-copy');
  });

  it('copies a copy by appending another suffix', () => {
    expect(nextCopyId('prod-copy', ['prod-copy'])).toBe('prod-copy-copy');
  });
});
