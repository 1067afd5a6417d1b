import { IsBoolean, IsIn, IsNotEmpty, IsString } from 'class-validator';

/** What happened to a content record. */
export const CONTENT_CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
/** A content change action. */
export type ContentChangeAction = (typeof CONTENT_CHANGE_ACTIONS)[number];

/**
 * Payload of `content.page.changed` (localization.md, settings rule 11). `source_changed` keeps the
 * spec's snake_case name because it is the wire name; the page is addressed by its public slug, in
 * `id` as well so a consumer of both content events reads one `{type, id}` shape.
 */
export class ContentPageChangedPayload {
  @IsIn(['page'])
  type!: 'page';

  /** The slug. */
  @IsString()
  @IsNotEmpty()
  id!: string;

  @IsString()
  @IsNotEmpty()
  slug!: string;

  @IsIn(CONTENT_CHANGE_ACTIONS)
  action!: ContentChangeAction;

  /** True when source-language title or body changed (not SEO fields, not translations). */
  @IsBoolean()
  source_changed!: boolean;
}

/** Payload of `content.fragment.changed` (localization.md, settings rule 11); addressed by its key. */
export class ContentFragmentChangedPayload {
  @IsIn(['fragment'])
  type!: 'fragment';

  /** The fragment key. */
  @IsString()
  @IsNotEmpty()
  id!: string;

  @IsString()
  @IsNotEmpty()
  key!: string;

  @IsIn(CONTENT_CHANGE_ACTIONS)
  action!: ContentChangeAction;

  /** True when a source-language leaf changed. */
  @IsBoolean()
  source_changed!: boolean;
}
