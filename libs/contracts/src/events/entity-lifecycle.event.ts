import { IsArray, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/**
 * Payload of every `<entity>.created|updated|deleted` topic (flows-compile-search-hub.md, rule 8a and
 * Events): it carries the entity id. Consumers re-read the entity rather than trusting a snapshot, so a
 * reordered or replayed event never resurrects stale data.
 */
export class EntityLifecyclePayload {
  @IsString()
  @IsNotEmpty()
  id!: string;

  /** Names of the fields an update touched, when the producer knows them. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  changedFields?: string[];
}
