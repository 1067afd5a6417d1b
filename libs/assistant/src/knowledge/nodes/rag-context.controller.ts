import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { RemoteNodeHandler } from '@flowplane/platform/auth';
import { KnowledgeSearchClient } from '../use-cases/search.client';
import { RAG_CONTEXT_NODE, questionOf, ragSettingsOf, retrievalError, withExcerpts } from './rag-context.node';

type Packet = Record<string, unknown>;
const isObject = (v: unknown): v is Packet => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The invoke route of `svc/assistant-rag-context` (flow-runtime calls it with the step token of
 * the node). Every failure is an `Error` output the flow can route, never an HTTP error: a chat
 * whose index is missing still gets an answer, without excerpts, with a warning naming the index.
 */
@ApiExcludeController()
@Controller('internal/nodes')
export class RagContextController {
  constructor(private readonly search: KnowledgeSearchClient) {}

  @Post('assistant-rag-context')
  @HttpCode(200)
  @RemoteNodeHandler(RAG_CONTEXT_NODE)
  async step(@Body() step: Record<string, unknown>) {
    const packet: Packet = isObject(step.packet) ? step.packet : {};
    const error = (code: string, message: string, index: string, warning: string) => ({ outputs: [{ port: 'Error', packet: retrievalError(packet, code, message, index, warning) }] });
    let settings;
    try {
      settings = ragSettingsOf(step.config);
    } catch (e) {
      return error('INVALID_SETTINGS', (e as Error).message, String((step.config as Packet | undefined)?.index ?? ''), 'knowledge retrieval is misconfigured, so this answer uses no excerpts');
    }
    const question = questionOf(packet, settings.queryKey);
    if (!question) {
      const where = settings.queryKey ? `packet.${settings.queryKey}` : 'the messages (no user message)';
      return error('QUERY_MISSING', `no question to search for in ${where}`, settings.index, 'there was no question to search the knowledge for');
    }
    try {
      const result = await this.search.query(settings.index, question, settings.topK);
      return { outputs: [{ port: 'out', packet: withExcerpts(packet, question, result.hits, settings, result.backendIndex) }] };
    } catch (e) {
      if (e instanceof ServiceCallError && !(e instanceof ServiceUnavailableError) && e.status === 404) {
        return error('INDEX_NOT_FOUND', `the knowledge index ${settings.index} does not exist; fill it with assistant-ingest`, settings.index, `the knowledge index ${settings.index} does not exist, so this answer uses no excerpts`);
      }
      if (e instanceof ServiceCallError && !(e instanceof ServiceUnavailableError) && e.status !== undefined && e.status < 500) {
        return error('RETRIEVAL_REFUSED', `the search service refused the query: ${e.remoteMessage ?? e.status}`, settings.index, `the knowledge index ${settings.index} could not be searched, so this answer uses no excerpts`);
      }
      return error('SEARCH_UNAVAILABLE', 'the search service is unavailable', settings.index, `the knowledge index ${settings.index} is unavailable right now, so this answer uses no excerpts`);
    }
  }
}
