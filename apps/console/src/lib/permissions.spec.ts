import { decodeClaims, permissionsOf } from './permissions';

describe('permissions from token claims', () => {
  it('reads an array, a dotted path and a space or comma separated string', () => {
    expect(permissionsOf({ perms: ['admin:access', 7] }, 'perms')).toEqual(['admin:access']);
    expect(permissionsOf({ realm_access: { roles: ['a', 'b'] } }, 'realm_access.roles')).toEqual(['a', 'b']);
    expect(permissionsOf({ scope: 'admin:access profiles:read,x' }, 'scope')).toEqual(['admin:access', 'profiles:read', 'x']);
    expect(permissionsOf({}, 'perms')).toEqual([]);
  });

  it('decodes the claims of a JWT (base64url, UTF-8) and refuses what is not one', () => {
    const payload = Buffer.from(JSON.stringify({ sub: 'zoë', perms: ['admin:access'] })).toString('base64url');
    expect(decodeClaims(`h.${payload}.s`)).toEqual({ sub: 'zoë', perms: ['admin:access'] });
    expect(decodeClaims('nope')).toBeUndefined();
    expect(decodeClaims('a.!!!.c')).toBeUndefined();
    expect(decodeClaims(`h.${Buffer.from('[1]').toString('base64url')}.s`)).toBeUndefined();
  });
});
