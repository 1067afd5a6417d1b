import { duplicateDetails, indexFromServerName, isDuplicateKeyFailure } from './mongo.compat';

/** FerretDB's unique-index failures, as its two backends word them (measured on FerretDB 1.24.2). */
function serverError(message: string): Error {
  return Object.assign(new Error(message), { name: 'MongoServerError', code: 1, codeName: 'InternalError' });
}

describe('FerretDB duplicate-key failures', () => {
  const pgUpdate = serverError(
    '[msg_update.go:133 handler.(*Handler).updateDocument] [collection.go:218 postgresql.(*collection).UpdateAll.func1] ERROR: duplicate key value violates unique constraint "p_f50c43ef_byname_05ea988f_idx" (SQLSTATE 23505)',
  );
  const pgBuild = serverError(
    '[msg_createindexes.go:155 handler.(*Handler).MsgCreateIndexes] [registry.go:849 metadata.(*Registry).indexesCreate] ERROR: could not create unique index "p_f50c43ef_name___318aadbe_idx" (SQLSTATE 23505)',
  );
  const sqlite = serverError("[msg_update.go:133] constraint failed: UNIQUE constraint failed: index 'people_e40c292c_email_1' (2067)");

  it('recognises the PostgreSQL and SQLite backends’ wording, and nothing else of code 1', () => {
    expect([pgUpdate, pgBuild, sqlite].map(isDuplicateKeyFailure)).toEqual([true, true, true]);
    expect(isDuplicateKeyFailure(serverError('ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)'))).toBe(false);
  });

  it('names the index the server-side name stands for', () => {
    const names = ['_id_', 'name_1', 'byname', 'email_1', 'tenant_1_slug_1'];
    expect(indexFromServerName(duplicateDetails(pgUpdate).serverIndex!, names)).toBe('byname');
    expect(indexFromServerName(duplicateDetails(pgBuild).serverIndex!, names)).toBe('name_1');
    expect(indexFromServerName(duplicateDetails(sqlite).serverIndex!, names)).toBe('email_1');
    expect(indexFromServerName('t_0badc0de_tenant___slug___1234abcd_idx', names)).toBe('tenant_1_slug_1');
  });
});
