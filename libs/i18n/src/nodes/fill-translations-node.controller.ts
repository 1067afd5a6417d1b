import { Body, Controller, HttpCode, Inject, Logger, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { RemoteNodeHandler } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { FillTranslations } from '../auto-translate/auto-translate.ports';
import { FillSettingsError, type FillNodeAnswer, type FillNodeStep, fillTranslationsStep } from './fill-translations.step';
import { FILL_NODE_TIMEOUT_MS, I18N_FILL_TRANSLATIONS_NODE } from './i18n-nodes';

/** Time left for the answer to travel back before flow-runtime's step timeout fires. */
const ANSWER_MARGIN_MS = 30_000;

/**
 * The invoke route of `i18n/fill-translations` (flow-runtime calls it with the step token of the
 * node). The fill loop gets a deadline inside the step timeout, so a big run answers with what it
 * did and reports the rest as `remaining` instead of timing out; when flow-runtime gives up anyway
 * (the run was cancelled), the fill loop is aborted. Disabled mode answers 503 before this runs
 * (I18nDisabledInterceptor), which fails the run: there is nothing to fill.
 */
@ApiExcludeController()
@Controller('internal/nodes/i18n')
export class FillTranslationsNodeController {
  private readonly log = new Logger('FillTranslationsNode');

  constructor(@Inject(FillTranslations) private readonly fill: FillTranslations) {}

  @Post('fill-translations')
  @HttpCode(200)
  @RemoteNodeHandler(I18N_FILL_TRANSLATIONS_NODE)
  async step(@Body() step: Record<string, unknown>, @Res({ passthrough: true }) res: Response): Promise<FillNodeAnswer> {
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort(new Error('flow-runtime stopped waiting for the step'));
    });
    try {
      const answer = await fillTranslationsStep(step as FillNodeStep, this.fill, Date.now() + FILL_NODE_TIMEOUT_MS - ANSWER_MARGIN_MS, aborted.signal);
      for (const line of answer.logs) this.log.log(`run ${String(step.runId ?? '?')}: ${line.message}`);
      return answer;
    } catch (e) {
      if (e instanceof FillSettingsError) throw new DomainException('INVALID_NODE_CONFIG', 400, `i18n/fill-translations: ${e.message}`);
      throw e;
    }
  }
}
