import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import type { Profile, ProfileAddress } from '../domain/profile.entity';

interface ProfileFields {
  module: string;
  kind: string;
  profileId: string;
  name: string;
  description?: string;
  config: Record<string, unknown>;
}

interface ProfileDocument extends StoreDocument, ProfileFields {
  createdAt: Date;
  updatedAt: Date;
}

/** What a write stores; the repository keeps `id` and `createdAt` of an existing profile. */
export type ProfileWrite = Omit<Profile, 'id' | 'createdAt' | 'updatedAt'>;

const ORDER = { module: 1, kind: 1, profileId: 1 } as const;

/** Profiles on the Store port: collection `profiles`, unique on (module, kind, profileId). */
@Injectable()
export class ProfileRepository implements OnModuleInit {
  static readonly COLLECTION = 'profiles';
  private readonly profiles: Collection<ProfileDocument>;
  private indexed?: Promise<unknown>;

  constructor(@Inject(STORE) store: Store) {
    this.profiles = store.collection<ProfileDocument>(ProfileRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.ensureIndexes();
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
    return doc && toEntity(doc);
  }

  /** Every profile, or those of one kind, ordered by module, kind and id. */
  async list(filter: { kind?: string } = {}): Promise<Profile[]> {
    const docs = await this.profiles.find(filter.kind === undefined ? {} : { kind: filter.kind }, {
      sort: ORDER,
    });
    return docs.map(toEntity);
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
      { ...documentFields(write), createdAt: now, updatedAt: now },
      { session },
    );
    return toEntity(doc);
  }

  /** Replaces identity and config of an existing profile, keeping its id and creation time. */
  async replace(existing: Profile, write: ProfileWrite, now: Date, session?: StoreSession): Promise<Profile> {
    const doc = { ...documentFields(write), createdAt: existing.createdAt, updatedAt: now };
    await this.profiles.replaceOne({ _id: existing.id }, doc, { session });
    return toEntity({ _id: existing.id, ...doc });
  }

  /** Deletes the profile at the address; false when there was none. */
  async delete(address: ProfileAddress, session?: StoreSession): Promise<boolean> {
    const { deletedCount } = await this.profiles.deleteOne(addressFilter(address), { session });
    return deletedCount > 0;
  }
}

function addressFilter(a: ProfileAddress): Record<string, string> {
  return { module: a.module, kind: a.kind, profileId: a.profileId };
}

function documentFields(w: ProfileWrite): ProfileFields {
  return {
    module: w.module,
    kind: w.kind,
    profileId: w.profileId,
    name: w.name,
    ...(w.description !== undefined ? { description: w.description } : {}),
    config: w.config,
  };
}

function toEntity(doc: ProfileDocument): Profile {
  const profile: Profile = {
    id: doc._id,
    module: doc.module,
    kind: doc.kind,
    profileId: doc.profileId,
    name: doc.name,
    config: { ...doc.config },
    createdAt: new Date(doc.createdAt),
    updatedAt: new Date(doc.updatedAt),
  };
  // Stores may hand back null for a field written as undefined.
  if (doc.description !== undefined && doc.description !== null) profile.description = doc.description;
  return profile;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
