import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { SealedValueError, SecretsKeyring } from '@flowplane/platform/config';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import { forgetOldRecords, isSet, openValue, SECRETS_KEYRING, sealValue, secretsKeyError } from '../../persistence/secrets-at-rest';
import type { Profile, ProfileAddress } from '../domain/profile.entity';
import { KindRegistry } from '../kinds/kind.registry';

interface ProfileFields {
  module: string;
  kind: string;
  profileId: string;
  name: string;
  description?: string;
  /** Values of the fields that are not sensitive (and unset sensitive ones). */
  config: Record<string, unknown>;
  /** Sensitive values, each sealed on its own (`enc:v1:...`); merged into `config` on read. */
  sealed?: Record<string, string>;
}

interface ProfileDocument extends StoreDocument, ProfileFields {
  createdAt: Date;
  updatedAt: Date;
}

/** What a write stores; the repository keeps `id` and `createdAt` of an existing profile. */
export type ProfileWrite = Omit<Profile, 'id' | 'createdAt' | 'updatedAt'>;

const ORDER = { module: 1, kind: 1, profileId: 1 } as const;

/**
 * Profiles on the Store port: collection `profiles`, unique on (module, kind, profileId).
 * Sensitive values (per the kind; every value of a kind no longer declared, as masking does) are
 * sealed with the keyring into `sealed`, so neither the journal nor MongoDB holds them in clear.
 * Without a keyring (unit tests that build the repository by hand) values are stored as given.
 */
@Injectable()
export class ProfileRepository implements OnModuleInit {
  static readonly COLLECTION = 'profiles';
  private readonly profiles: Collection<ProfileDocument>;
  private indexed?: Promise<unknown>;
  private readonly log = new Logger('ProfileRepository');

  constructor(
    @Inject(STORE) private readonly store: Store,
    @Inject(KindRegistry) private readonly kinds?: KindRegistry,
    @Inject(SECRETS_KEYRING) private readonly keyring?: SecretsKeyring,
  ) {
    this.profiles = store.collection<ProfileDocument>(ProfileRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.ensureIndexes();
    const resealed = await this.resealAll();
    if (resealed > 0) {
      await forgetOldRecords(this.store);
      this.log.log(`sealed the secrets of ${resealed} profile(s) with SECRETS_KEY key "${this.keyring?.primaryKid}"`);
    }
  }

  /**
   * Seals what is still in clear (written before encryption) or under an older key, and checks that
   * every stored secret opens: refuses the start (SecretsKeyError naming SECRETS_KEY) when one does
   * not. Resolves how many profiles it rewrote.
   */
  async resealAll(): Promise<number> {
    const keyring = this.keyring;
    if (!keyring) return 0;
    const failures: SealedValueError[] = [];
    let resealed = 0;
    for (const doc of await this.profiles.find({})) {
      let profile: Profile;
      try {
        profile = this.toEntity(doc);
      } catch (e) {
        if (!(e instanceof SealedValueError)) throw e;
        failures.push(e);
        continue;
      }
      const stale = Object.values(doc.sealed ?? {}).some((v) => keyring.needsReseal(v));
      const sensitive = this.sensitivity(doc.module, doc.kind);
      const clear = Object.entries(doc.config ?? {}).some(([k, v]) => sensitive(k) && isSet(v));
      if (!stale && !clear) continue;
      // Only if untouched since it was read: another replica may be writing it right now.
      const { matchedCount } = await this.profiles.replaceOne(
        { _id: doc._id, updatedAt: doc.updatedAt },
        { ...this.documentFields(profile), createdAt: doc.createdAt, updatedAt: doc.updatedAt },
      );
      resealed += matchedCount;
    }
    if (failures.length) throw secretsKeyError(keyring, failures);
    return resealed;
  }

  /** Creates the unique address index (idempotent). */
  ensureIndexes(): Promise<unknown> {
    return (this.indexed ??= this.profiles.createIndex({
      keys: ORDER,
      name: 'profile_address',
      unique: true,
    }));
  }

  async find(address: ProfileAddress, session?: StoreSession): Promise<Profile | null> {
    const doc = await this.profiles.findOne(addressFilter(address), { session });
    return doc && this.toEntity(doc);
  }

  /** Every profile, or those of one kind, ordered by module, kind and id. */
  async list(filter: { kind?: string } = {}): Promise<Profile[]> {
    const docs = await this.profiles.find(filter.kind === undefined ? {} : { kind: filter.kind }, {
      sort: ORDER,
    });
    return docs.map((d) => this.toEntity(d));
  }

  /** Ids of the (module, kind) that start with `prefix`. */
  async idsStartingWith(
    module: string,
    kind: string,
    prefix: string,
    session?: StoreSession,
  ): Promise<string[]> {
    const docs = await this.profiles.find(
      { module, kind, profileId: { $regex: `^${escapeRegex(prefix)}` } },
      { session, projection: { profileId: 1 } },
    );
    return docs.map((d) => d.profileId);
  }

  /** Inserts a new profile; throws `DuplicateKeyError` when the address is taken. */
  async insert(write: ProfileWrite, now: Date, session?: StoreSession): Promise<Profile> {
    const doc = await this.profiles.insertOne(
      { ...this.documentFields(write), createdAt: now, updatedAt: now },
      { session },
    );
    return this.toEntity(doc);
  }

  /** Replaces identity and config of an existing profile, keeping its id and creation time. */
  async replace(existing: Profile, write: ProfileWrite, now: Date, session?: StoreSession): Promise<Profile> {
    const doc = { ...this.documentFields(write), createdAt: existing.createdAt, updatedAt: now };
    await this.profiles.replaceOne({ _id: existing.id }, doc, { session });
    return this.toEntity({ _id: existing.id, ...doc });
  }

  /** Deletes the profile at the address; false when there was none. */
  async delete(address: ProfileAddress, session?: StoreSession): Promise<boolean> {
    const { deletedCount } = await this.profiles.deleteOne(addressFilter(address), { session });
    return deletedCount > 0;
  }

  /** Which keys of a (module, kind) are sealed: the sensitive fields, or all of an undeclared kind. */
  private sensitivity(module: string, kind: string): (key: string) => boolean {
    if (!this.keyring) return () => false;
    const declared = this.kinds?.byId(kind);
    if (!declared || declared.module !== module) return () => true;
    return (key) => declared.fieldMap.get(key)?.sensitive === true;
  }

  private documentFields(w: ProfileWrite): ProfileFields {
    const sensitive = this.sensitivity(w.module, w.kind);
    const config: Record<string, unknown> = {};
    const sealed: Record<string, string> = {};
    for (const [key, value] of Object.entries(w.config)) {
      if (this.keyring && sensitive(key) && isSet(value)) sealed[key] = sealValue(this.keyring, value, sealContext(w, key));
      else config[key] = value;
    }
    return {
      module: w.module,
      kind: w.kind,
      profileId: w.profileId,
      name: w.name,
      ...(w.description !== undefined ? { description: w.description } : {}),
      config,
      ...(Object.keys(sealed).length ? { sealed } : {}),
    };
  }

  private toEntity(doc: ProfileDocument): Profile {
    const config: Record<string, unknown> = { ...doc.config };
    for (const [key, value] of Object.entries(doc.sealed ?? {})) {
      const where = `profile ${doc.module}/${doc.kind}/${doc.profileId}, field ${key}`;
      config[key] = openValue(this.keyring, value, sealContext(doc, key), where);
    }
    const profile: Profile = {
      id: doc._id,
      module: doc.module,
      kind: doc.kind,
      profileId: doc.profileId,
      name: doc.name,
      config,
      createdAt: new Date(doc.createdAt),
      updatedAt: new Date(doc.updatedAt),
    };
    // Stores may hand back null for a field written as undefined.
    if (doc.description !== undefined && doc.description !== null) profile.description = doc.description;
    return profile;
  }
}

/** What a sealed value is bound to: its profile and field, so it cannot be moved to another one. */
function sealContext(a: ProfileAddress, key: string): string {
  return ['profile', a.module, a.kind, a.profileId, key].join('\0');
}

function addressFilter(a: ProfileAddress): Record<string, string> {
  return { module: a.module, kind: a.kind, profileId: a.profileId };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
