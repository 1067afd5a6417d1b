import { Controller, Get, Header, Param, Req, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { requestOrigin } from '../domain/sitemap';
import { PublicFragmentDto, PublicPageDto } from '../dto/content.dto';
import { PublicContentService } from '../use-cases/public-content.service';
import { pageSurrogateHeaders } from '../use-cases/public-page.cache';
import { SitemapUseCase } from '../use-cases/sitemap.use-case';

const LangQuery = () => ApiQuery({ name: 'lang', required: false, description: 'Locale; else the `lang` cookie, Accept-Language, the default locale.', example: 'pl' });

/** Pages and fragments for readers, in their language (public, under /api/v1). */
@ApiTags('content')
@Controller()
export class PublicContentController {
  constructor(
    private readonly content: PublicContentService,
    private readonly sitemap: SitemapUseCase,
  ) {}

  @Get('pages/:slug')
  @Public()
  @LangQuery()
  @ApiParam({ name: 'slug', example: 'privacy' })
  @ApiOperation({ summary: 'A page in the request locale: title and SEO as plain text, body as HTML, settings tokens expanded' })
  @ApiOkResponse({ type: PublicPageDto, description: '`Content-Language` names the locale the body came from. Through the gateway a page already read may be answered from its cache (an `Age` header says so; at most 2 s old, dropped at once on page, settings and gateway-seen writes); send `Cache-Control: no-cache` for a fresh render.' })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  async page(@Param('slug') slug: string, @Res({ passthrough: true }) res: Response): Promise<PublicPageDto> {
    const { page, contentLocale, shareable } = await this.content.page(slug);
    // The fast path (page-fast-path.ts) answers the same headers for a page already rendered.
    res.setHeader('Content-Language', contentLocale);
    res.setHeader('Vary', 'Accept-Language, Cookie');
    if (shareable) for (const [name, value] of pageSurrogateHeaders(page.slug)) res.setHeader(name, value);
    return page;
  }

  @Get('fragments/:key')
  @Public()
  @LangQuery()
  @ApiParam({ name: 'key', example: 'footer' })
  @ApiOperation({ summary: 'A fragment in the request locale: every `_i18n` leaf projected to its text, tokens expanded as plain text' })
  @ApiOkResponse({ type: PublicFragmentDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  async fragment(@Param('key') key: string, @Res({ passthrough: true }) res: Response): Promise<PublicFragmentDto> {
    res.setHeader('Vary', 'Accept-Language, Cookie');
    return this.content.fragment(key);
  }

  @Get('sitemap.xml')
  @Public()
  @Header('Content-Type', 'application/xml; charset=utf-8')
  @ApiProduces('application/xml')
  @ApiOperation({
    summary: 'Sitemap: every page under each active locale it has content in, with hreflang alternates (also at /sitemap.xml)',
    description:
      'A page is listed under a locale when its body has text in that locale or its base language (a page without any body text: its title); a locale that would only show the fallback text is not listed. Alternates name every listed locale plus `x-default` (the fallback locale\'s version when listed, else the first). `lastmod` is left out for a page stored without a time.',
  })
  @ApiOkResponse({ description: 'sitemaps.org 0.9 XML with xhtml:link alternates, x-default included.', schema: { type: 'string' } })
  sitemapXml(@Req() req: Request): Promise<string> {
    return this.sitemap.execute(requestOrigin(req.headers));
  }
}
