import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsOptional, ValidateBy, ValidateNested, type ValidationOptions } from 'class-validator';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { I18nPageQueryDto } from '../../shared/page-query.dto';

/** Longest text of one locale, by field. */
export const TEXT_LIMITS = Object.freeze({ title: 1_000, body: 512 * 1024, seoTitle: 1_000, seoDescription: 5_000 });

/** A map of locale codes (the registry's code shape) to strings of at most `max` characters. */
function IsLocaleMap(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLocaleMap',
      validator: {
        validate: (value: unknown) =>
          value !== null &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.entries(value).every(([k, v]) => LOCALE_CODE_PATTERN.test(k) && typeof v === 'string' && v.length <= max),
        defaultMessage: (args) => `${args?.property ?? 'value'} must map locale codes (en, pt-BR) to texts of at most ${max} characters`,
      },
    },
    options,
  );
}

const LOCALE_MAP = (example: Record<string, string>, description: string) => ({ type: 'object', additionalProperties: { type: 'string' }, example, description }) as const;

/** The SEO fields of a page, each a locale map. */
export class PageSeoDto {
  @ApiPropertyOptional(LOCALE_MAP({ en: 'Privacy policy of [[ site.name ]]' }, 'Expanded as plain text; translated, not hashed.'))
  @IsOptional()
  @IsLocaleMap(TEXT_LIMITS.seoTitle)
  title?: Record<string, string>;

  @ApiPropertyOptional(LOCALE_MAP({ en: 'How we handle your data' }, 'Expanded as plain text; translated, not hashed.'))
  @IsOptional()
  @IsLocaleMap(TEXT_LIMITS.seoDescription)
  description?: Record<string, string>;
}

/** Body of `PUT /admin/content/pages/{slug}`: the page's text as a whole, its translation flags where given. */
export class PutPageDto {
  @ApiProperty(LOCALE_MAP({ en: 'About [[ site.name ]]', pl: 'O [[ site.name ]]' }, 'Locale to title; expanded as plain text.'))
  @IsDefined()
  @IsLocaleMap(TEXT_LIMITS.title)
  title!: Record<string, string>;

  @ApiProperty(LOCALE_MAP({ en: '<p>Write to [[ site.support_email ]].</p>' }, 'Locale to HTML, stored as written; token values are escaped when served.'))
  @IsDefined()
  @IsLocaleMap(TEXT_LIMITS.body)
  body!: Record<string, string>;

  @ApiPropertyOptional({ type: PageSeoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => PageSeoDto)
  seo?: PageSeoDto;

  @ApiPropertyOptional({ description: 'Source text declared finished: bulk translators take the page. Absent keeps the stored flag (default false).' })
  @IsOptional()
  @IsBoolean()
  translationReady?: boolean;

  @ApiPropertyOptional({ description: 'Hold machine translations for review. Absent keeps the stored flag (default false).' })
  @IsOptional()
  @IsBoolean()
  reviewRequired?: boolean;

  @ApiPropertyOptional({ description: 'One-shot: translate every locale again on the next run (cleared once a translator acted).' })
  @IsOptional()
  @IsBoolean()
  retranslate?: boolean;
}

/** Body of `PUT /admin/content/fragments/{key}`. */
export class PutFragmentDto {
  @ApiProperty({
    description: 'Free-form JSON. A leaf `{"_i18n": {"<locale>": "<text>"}}` is localized; no field name may begin with `$`.',
    example: { links: [{ href: '/privacy', label: { _i18n: { en: 'Privacy', pl: 'Prywatność' } } }], copyright: '© [[ site.name ]]' },
  })
  @IsDefined()
  data!: unknown;

  @ApiPropertyOptional({ description: 'Absent keeps the stored flag (default false).' })
  @IsOptional()
  @IsBoolean()
  translationReady?: boolean;

  @ApiPropertyOptional({ description: 'Absent keeps the stored flag (default false).' })
  @IsOptional()
  @IsBoolean()
  reviewRequired?: boolean;
}

export class ContentPageQueryDto extends I18nPageQueryDto {}

export class UnitStateDto {
  @ApiProperty({ example: 'title', description: 'A page field (`title`, `body`, `seo.title`, `seo.description`) or a fragment leaf by JSON Pointer (`/links/0/label`).' })
  unit!: string;

  @ApiProperty({ description: 'Hash of the source text the locales below are current at.' })
  hash!: string;

  @ApiProperty({ type: [String], example: ['pl'] })
  locales!: string[];
}

export class PendingTranslationDto {
  @ApiProperty({ example: 'body' })
  unit!: string;

  @ApiProperty({ example: 'de' })
  locale!: string;

  @ApiProperty()
  text!: string;

  @ApiProperty({ description: 'Hash of the source text the candidate was made from.' })
  hash!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

export class TranslationStateDto {
  @ApiProperty()
  translationReady!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Hash the translator last worked from (null: never translated).' })
  sourceHash!: string | null;

  @ApiProperty({ description: 'Hash of the source as it stands.' })
  currentSourceHash!: string;

  @ApiProperty({ description: 'The source changed since the translator last worked.' })
  stale!: boolean;

  @ApiProperty()
  retranslate!: boolean;

  @ApiProperty({ type: [UnitStateDto], nullable: true, description: 'null: written before units existed; its text is adopted on the next write.' })
  units!: UnitStateDto[] | null;

  @ApiProperty()
  reviewRequired!: boolean;

  @ApiProperty({ type: [PendingTranslationDto] })
  pending!: PendingTranslationDto[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['current', 'stale', 'missing', 'pending'] },
    example: { en: 'current', pl: 'stale', de: 'missing' },
    description: 'Every active locale: current, stale (text behind its source), missing (no text), pending (a candidate waits for review).',
  })
  locales!: Record<string, string>;
}

export class PageViewDto {
  @ApiProperty({ example: 'about' })
  slug!: string;

  @ApiProperty(LOCALE_MAP({ en: 'About [[ site.name ]]' }, 'As stored.'))
  title!: Record<string, string>;

  @ApiProperty(LOCALE_MAP({ en: '<p>Hello</p>' }, 'As stored.'))
  body!: Record<string, string>;

  @ApiProperty({ type: PageSeoDto })
  seo!: PageSeoDto;

  @ApiProperty({ type: TranslationStateDto })
  translation!: TranslationStateDto;

  @ApiPropertyOptional({ example: 'privacy', description: 'Set on a page the legal-pages seeder wrote and nobody edited since.' })
  seededFrom?: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Creation time; null when the record was stored without it (written by an older version or by hand).' })
  createdAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last edit; null when the record was stored without it (written by an older version or by hand).' })
  updatedAt!: string | null;
}

export class PagePageDto {
  @ApiProperty({ type: [PageViewDto] })
  items!: PageViewDto[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor!: string | null;
}

export class FragmentViewDto {
  @ApiProperty({ example: 'footer' })
  key!: string;

  @ApiProperty({ description: 'As stored, `_i18n` markers intact.' })
  data!: unknown;

  @ApiProperty({ type: TranslationStateDto })
  translation!: TranslationStateDto;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Creation time; null when the record was stored without it (written by an older version or by hand).' })
  createdAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last edit; null when the record was stored without it (written by an older version or by hand).' })
  updatedAt!: string | null;
}

export class FragmentPageDto {
  @ApiProperty({ type: [FragmentViewDto] })
  items!: FragmentViewDto[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor!: string | null;
}

export class DeletedContentDto {
  @ApiProperty({ example: true })
  deleted!: boolean;
}

export class PublicSeoDto {
  @ApiPropertyOptional()
  title?: string;

  @ApiPropertyOptional()
  description?: string;
}

export class PublicPageDto {
  @ApiProperty({ example: 'about' })
  slug!: string;

  @ApiProperty({ example: 'pl', description: 'The active locale of the request (query `lang`, `lang` cookie, Accept-Language, default).' })
  locale!: string;

  @ApiProperty({ example: 'About Acme', description: 'Plain text, settings tokens expanded.' })
  title!: string;

  @ApiProperty({ example: '<p>Write to help@acme.test.</p>', description: 'HTML as stored, token values escaped.' })
  body!: string;

  @ApiProperty({ type: PublicSeoDto })
  seo!: PublicSeoDto;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last edit; null when the record was stored without it (written by an older version or by hand).' })
  updatedAt!: string | null;
}

export class PublicFragmentDto {
  @ApiProperty({ example: 'footer' })
  key!: string;

  @ApiProperty({ example: 'pl' })
  locale!: string;

  @ApiProperty({ description: 'The stored data with every `_i18n` marker replaced by its text; tokens expanded as plain text.' })
  data!: unknown;
}
