import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RemoteNodeHandler } from '@flowplane/platform/auth';
import { SearchErrorsInterceptor, SearchException } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import type { SearchDocument, SearchQuery } from '../domain/search.types';
import { SEARCH_QUERY_NODE, SEARCH_UPSERT_NODE } from './search-nodes';

/** What flow-runtime POSTs for each step of a remote node. */
interface NodeStep {
  config?: Record<string, unknown>;
  packet?: unknown;
}

type Packet = Record<string, unknown>;

const isObject = (v: unknown): v is Packet => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The invoke routes of `svc/search-upsert` and `svc/search-query` (flow-runtime calls them with the
 * step token of the node, valid for that node type only). Each step resolves the live SearchService, so the nodes can be registered (and
 * stay registered in flow-runtime's store) while this service is down; a step then fails on the
 * node's `Error` port. A 4xx answer names what was wrong with the config or the packet.
 */
@ApiExcludeController()
@Controller('internal/nodes')
@UseInterceptors(SearchErrorsInterceptor)
export class SearchNodesController {
  constructor(private readonly search: SearchService) {}

  @Post('search-upsert')
  @HttpCode(200)
  @RemoteNodeHandler(SEARCH_UPSERT_NODE)
  async upsert(@Body() step: Record<string, unknown>) {
    const { config, packet } = step as NodeStep;
    const index = indexOf(config);
    const documents = documentsOf(packet);
    const result = await this.search.upsert(index, documents);
    const out: Packet = isObject(packet) ? { ...packet } : { documents: packet };
    return { outputs: [{ port: 'out', packet: { ...out, index, upserted: result.upserted } }] };
  }

  @Post('search-query')
  @HttpCode(200)
  @RemoteNodeHandler(SEARCH_QUERY_NODE)
  async query(@Body() step: Record<string, unknown>) {
    const { config, packet } = step as NodeStep;
    const index = indexOf(config);
    if (!isObject(packet)) throw bad('svc/search-query needs an object packet holding the query');
    const queryKey = typeof config?.queryKey === 'string' && config.queryKey ? config.queryKey : 'query';
    const q: SearchQuery = {};
    const text = packet[queryKey] ?? (queryKey === 'query' ? packet.text : undefined);
    if (typeof text === 'string' && text.trim()) q.text = text;
    else if (Array.isArray(packet.vector) && packet.vector.length) q.vector = packet.vector as number[];
    else throw bad(`svc/search-query found no query text in packet.${queryKey} and no vector in packet.vector`);
    if (config?.limit !== undefined && config.limit !== null && config.limit !== '') {
      const limit = Number(config.limit);
      if (!Number.isInteger(limit) || limit < 1) throw bad(`config.limit must be a positive integer, got ${JSON.stringify(config.limit)}`);
      q.limit = limit;
    }
    if (isObject(packet.payload)) q.payload = packet.payload;
    if (isObject(packet.filter)) q.filter = packet.filter;
    const result = await this.search.query(index, q);
    return { outputs: [{ port: 'out', packet: { ...packet, index, hits: result.hits, exhausted: result.exhausted } }] };
  }
}

function bad(message: string): SearchException {
  return new SearchException('SEARCH_NODE_INVALID', 400, message);
}

function indexOf(config: Record<string, unknown> | undefined): string {
  const index = config?.index;
  if (typeof index !== 'string' || !index) throw bad('config.index is required: the logical index name');
  return index;
}

/** The documents of an upsert packet; an empty vector means "embed the text". */
function documentsOf(packet: unknown): SearchDocument[] {
  let list: unknown[];
  if (Array.isArray(packet)) list = packet;
  else if (isObject(packet) && Array.isArray(packet.documents)) list = packet.documents;
  else if (isObject(packet) && isObject(packet.document)) list = [packet.document];
  else if (isObject(packet) && packet.id !== undefined) list = [packet];
  else throw bad('svc/search-upsert found no documents: send packet.documents, packet.document, an array, or a packet with an id');
  return list.map((d, i) => {
    if (!isObject(d)) throw bad(`documents[${i}] must be an object {id, text?, vector?, payload?}`);
    const doc: SearchDocument = { id: d.id as string };
    if (Array.isArray(d.vector) && d.vector.length) doc.vector = d.vector as number[];
    if (d.text !== undefined && d.text !== null && doc.vector === undefined) doc.text = d.text as string;
    if (d.payload !== undefined) doc.payload = d.payload as SearchDocument['payload'];
    return doc;
  });
}
