import { DomainException, type FieldProblem } from '@flowplane/platform/http';

/** Stable codes of the profiles feature's errors (the `code` field of the error body). */
export enum ProfilesExceptionCode {
  /** No kind with that id is owned by that module. */
  KindNotFound = 'PROFILE_KIND_NOT_FOUND',
  /** No profile at that (module, kind, id). */
  ProfileNotFound = 'PROFILE_NOT_FOUND',
  /** The duplicate's `newProfileId` is taken. */
  ProfileExists = 'PROFILE_EXISTS',
  /** Config values do not fit the kind; `details` lists every failing field. */
  InvalidConfig = 'PROFILE_CONFIG_INVALID',
  /** An update body names another module, kind or id than its path; `details` names the fields. */
  IdentityMismatch = 'PROFILE_IDENTITY_MISMATCH',
}

/** A profiles error: the global filter turns it into `{statusCode, error, message, code, ...}`. */
export class ProfilesException extends DomainException {
  static kindNotFound(module: string, kind: string): ProfilesException {
    return new ProfilesException(
      ProfilesExceptionCode.KindNotFound,
      404,
      `no profile kind "${kind}" in module "${module}"`,
    );
  }

  static unknownKind(kind: string): ProfilesException {
    return new ProfilesException(ProfilesExceptionCode.KindNotFound, 404, `no profile kind "${kind}"`);
  }

  static profileNotFound(module: string, kind: string, profileId: string): ProfilesException {
    return new ProfilesException(
      ProfilesExceptionCode.ProfileNotFound,
      404,
      `profile not found: ${module}/${kind}/${profileId}`,
    );
  }

  static profileExists(module: string, kind: string, profileId: string): ProfilesException {
    return new ProfilesException(
      ProfilesExceptionCode.ProfileExists,
      409,
      `profile already exists: ${module}/${kind}/${profileId}`,
    );
  }

  /** Same body shape as the platform validation pipe: `details: [{field, problems[]}]`. */
  static invalidConfig(details: FieldProblem[]): ProfilesException {
    return new ProfilesException(
      ProfilesExceptionCode.InvalidConfig,
      400,
      `invalid input: ${details.map((d) => d.field).join(', ')}`,
      { details },
    );
  }

  /** An update body whose identity fields differ from the path; same body shape as `invalidConfig`. */
  static identityMismatch(details: FieldProblem[]): ProfilesException {
    return new ProfilesException(
      ProfilesExceptionCode.IdentityMismatch,
      400,
      `invalid input: ${details.map((d) => d.field).join(', ')}`,
      { details },
    );
  }

  private constructor(
    code: ProfilesExceptionCode,
    status: number,
    message: string,
    body?: Record<string, unknown>,
  ) {
    super(code, status, message, body);
  }
}
