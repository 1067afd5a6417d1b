import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

const TOPIC = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;
export const SCHEDULE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The fields of an entry, all given: what a module seeds. */
export class ScheduleFieldsDto {
  @ApiProperty({ example: '30 3 * * *', description: 'Five-field cron expression, evaluated in UTC.' })
  @IsString()
  @MaxLength(200)
  cron!: string;

  @ApiProperty({ example: 'i18n.translate.sweep', description: 'Topic the entry publishes on.' })
  @Matches(TOPIC, { message: 'topic must be lowercase dot-separated segments, for example i18n.translate.sweep' })
  topic!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Event payload; `firedAt` and `scheduleId` are added at each firing.' })
  @IsOptional()
  @IsObject()
  payload?: Record<string, unknown>;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/**
 * Body of PUT /flows/schedules/{id}: a new entry needs `cron` and `topic`; for an existing one
 * every field is optional and only the given ones change (`{"enabled": false}` turns it off).
 */
export class PutScheduleDto {
  @ApiPropertyOptional({ example: '30 3 * * *', description: 'Five-field cron expression, evaluated in UTC. Required to create an entry.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cron?: string;

  @ApiPropertyOptional({ example: 'i18n.translate.sweep', description: 'Topic the entry publishes on. Required to create an entry.' })
  @IsOptional()
  @Matches(TOPIC, { message: 'topic must be lowercase dot-separated segments, for example i18n.translate.sweep' })
  topic?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Event payload (replaced as a whole when given); `firedAt` and `scheduleId` are added at each firing.' })
  @IsOptional()
  @IsObject()
  payload?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Default true for a new entry; an existing entry keeps its state unless given.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** One seed entry (modules seed by stable id; an existing entry is never changed). */
export class SeedScheduleDto extends ScheduleFieldsDto {
  @ApiProperty({ example: 'i18n-translate-sweep' })
  @Matches(SCHEDULE_ID, { message: 'id must be 1-128 letters, digits, dots, dashes or underscores' })
  id!: string;
}

/** Body of POST /internal/schedules/seed. */
export class SeedSchedulesDto {
  @ApiProperty({ type: [SeedScheduleDto] })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => SeedScheduleDto)
  entries!: SeedScheduleDto[];
}

/** A scheduler entry as the API shows it. */
export class ScheduleView {
  @ApiProperty() id!: string;
  @ApiProperty() cron!: string;
  @ApiProperty() topic!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload!: Record<string, unknown>;
  @ApiProperty() enabled!: boolean;
  @ApiPropertyOptional({ format: 'date-time' }) nextRunAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastFiredAt?: string;
  @ApiProperty({ enum: ['seed', 'operator'] }) source!: 'seed' | 'operator';
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** Result of a seed call. */
export class SeedResultView {
  @ApiProperty({ type: [String], description: 'Ids inserted by this call.' }) inserted!: string[];
  @ApiProperty({ type: [String], description: 'Ids that already existed and were left unchanged.' }) existing!: string[];
}
