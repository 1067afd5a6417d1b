import { Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { UpstreamClients } from '../../upstream/upstream.clients';
import { upstreamFailure } from '../../upstream/upstream.errors';
import type { Chat } from '../domain/chat.entity';
import { ChatRepository } from '../persistence/chat.repository';

/** Per-variant figures of GET /admin/assistant/stats. */
export interface VariantStats {
  variantLabel: string;
  chats: number;
  turns: number;
  handoffs: number;
  up: number;
  down: number;
  p50FirstTokenMs: number | null;
  p95FirstTokenMs: number | null;
  tokens: number;
  cost: number | null;
  currency: string | null;
}

/** The `q` quantile of sorted numbers (nearest rank), null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Folds chats into per-variant figures (tokens and cost from the usage totals of their runs). */
export function variantStats(chats: readonly Chat[], usage: Record<string, { totalTokens: number; cost: number | null; currency: string | null }>): VariantStats[] {
  const byLabel = new Map<string, { chats: Chat[]; ttft: number[] }>();
  for (const c of chats) {
    const g = byLabel.get(c.variantLabel) ?? { chats: [], ttft: [] };
    g.chats.push(c);
    for (const m of c.messages) if (m.role === 'assistant' && typeof m.firstTokenMs === 'number') g.ttft.push(m.firstTokenMs);
    byLabel.set(c.variantLabel, g);
  }
  return [...byLabel.entries()]
    .map(([variantLabel, g]) => {
      const ttft = [...g.ttft].sort((a, b) => a - b);
      let tokens = 0;
      let cost: number | null = null;
      let currency: string | null = null;
      for (const c of g.chats) {
        for (const runId of c.runIds) {
          const u = usage[runId];
          if (!u) continue;
          tokens += u.totalTokens;
          if (u.cost !== null) {
            cost = (cost ?? 0) + u.cost;
            currency ??= u.currency;
          }
        }
      }
      const assistantTurns = g.chats.flatMap((c) => c.messages.filter((m) => m.role === 'assistant'));
      return {
        variantLabel,
        chats: g.chats.length,
        turns: g.chats.reduce((n, c) => n + c.messages.filter((m) => m.role === 'user').length, 0),
        handoffs: g.chats.filter((c) => c.handoffId).length,
        up: assistantTurns.filter((m) => m.rating === 'up').length,
        down: assistantTurns.filter((m) => m.rating === 'down').length,
        p50FirstTokenMs: quantile(ttft, 0.5),
        p95FirstTokenMs: quantile(ttft, 0.95),
        tokens,
        cost: cost === null ? null : Math.round(cost * 1e9) / 1e9,
        currency,
      };
    })
    .sort((a, b) => a.variantLabel.localeCompare(b.variantLabel));
}

/**
 * `GET /admin/assistant/stats`: per variant, the chats created in the range with their turns,
 * handoffs, ratings, time to first token, and tokens and cost from flow-runtime's usage ledger.
 */
@Injectable()
export class ChatStatsUseCase {
  constructor(
    private readonly chats: ChatRepository,
    private readonly upstream: UpstreamClients,
  ) {}

  async execute(fromText?: string, toText?: string): Promise<{ from: Date; to: Date; variants: VariantStats[] }> {
    const to = toText ? new Date(toText) : new Date();
    const from = fromText ? new Date(fromText) : new Date(to.getTime() - 30 * 86_400_000);
    if (Number.isNaN(to.getTime()) || Number.isNaN(from.getTime())) throw new DomainException('INVALID_RANGE', 400, '`from` and `to` must be ISO 8601 timestamps');
    if (from.getTime() >= to.getTime()) throw new DomainException('INVALID_RANGE', 400, '`from` must be before `to`');
    const chats = await this.chats.createdBetween(from, to);
    let usage = {};
    const runIds = chats.flatMap((c) => c.runIds);
    try {
      if (runIds.length) usage = await this.upstream.usageOfRuns(runIds);
    } catch (e) {
      throw upstreamFailure(e, 'flow-runtime');
    }
    return { from, to, variants: variantStats(chats, usage) };
  }
}
