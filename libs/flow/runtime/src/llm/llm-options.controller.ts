import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { Internal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { LLM_RUNTIME, type LlmRuntime } from './llm.tokens';

/**
 * Live option sources for the profiles service (`options_ref` of profile kind fields):
 * `llm.providers` (registered LLM provider ids) and `guard.guards` (registered guard ids).
 */
@Controller('internal/options')
@ApiExcludeController()
export class LlmOptionsController {
  constructor(@Inject(LLM_RUNTIME) private readonly llm: LlmRuntime) {}

  @Get(':source')
  @Internal(INTERNAL_PERMS.optionsRead)
  options(@Param('source') source: string): string[] {
    if (source === 'llm.providers') return this.llm.providers.ids();
    if (source === 'guard.guards') return this.llm.guards.ids();
    throw new DomainException('UNKNOWN_OPTION_SOURCE', 404, `no option source ${source}; known: llm.providers, guard.guards`);
  }
}
