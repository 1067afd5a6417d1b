import { Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { type Handoff, type HandoffStatus, isFinal } from '../domain/handoff.entity';
import { HandoffRepository } from '../persistence/handoff.repository';

/** What an operator changes (PATCH /assistant/handoffs/{id}). */
export interface HandoffChange {
  status: HandoffStatus;
  notes?: string;
}

const OPEN: readonly HandoffStatus[] = ['pending', 'contacted'];

/**
 * Moves a handoff: from pending or contacted any status may follow; resolved and dismissed are
 * final (409). Moving to contacted stamps when and by whom.
 */
@Injectable()
export class UpdateHandoffUseCase {
  constructor(private readonly handoffs: HandoffRepository) {}

  async execute(id: string, change: HandoffChange, callerSub: string, now = new Date()): Promise<Handoff> {
    const current = await this.handoffs.findById(id);
    if (!current) throw notFound(id);
    if (isFinal(current.status)) throw finalStatus(current);
    const set: { contactedAt?: Date; contactedBy?: string; notes?: string } = {};
    if (change.status === 'contacted') {
      set.contactedAt = now;
      set.contactedBy = callerSub;
    }
    if (change.notes !== undefined) set.notes = change.notes;
    const moved = await this.handoffs.move(id, OPEN, change.status, set, now);
    if (moved) return moved;
    // Moved to a final status between the read and the write.
    const after = await this.handoffs.findById(id);
    if (!after) throw notFound(id);
    throw finalStatus(after);
  }
}

export function notFound(id: string): DomainException {
  return new DomainException('HANDOFF_NOT_FOUND', 404, `no handoff ${JSON.stringify(id)}`);
}

function finalStatus(h: Handoff): DomainException {
  return new DomainException('HANDOFF_FINAL', 409, `handoff ${h.id} is ${h.status}, which is final`, { status: h.status });
}
