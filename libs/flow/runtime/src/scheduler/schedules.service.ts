import { Inject, Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { cronProblem, nextRun, type ScheduleEntry } from './schedule.entity';
import { ScheduleRepository } from './schedule.repository';
import type { PutScheduleDto, ScheduleFieldsDto, ScheduleView, SeedSchedulesDto } from './dto/schedule.dto';
import { SCHEDULE_ID } from './dto/schedule.dto';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from './scheduler.tokens';

/** Error codes of the scheduler routes. */
export enum SchedulesExceptionCode {
  NOT_FOUND = 'SCHEDULE_NOT_FOUND',
  INVALID = 'SCHEDULE_INVALID',
}

function view(e: ScheduleEntry): ScheduleView {
  return {
    id: e.id,
    cron: e.cron,
    topic: e.topic,
    payload: e.payload,
    enabled: e.enabled,
    nextRunAt: e.nextRunAt?.toISOString(),
    lastFiredAt: e.lastFiredAt?.toISOString(),
    source: e.source,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** Reads, writes and seeds scheduler entries. */
@Injectable()
export class SchedulesService {
  constructor(
    private readonly repo: ScheduleRepository,
    @Inject(SCHEDULER_OPTIONS) private readonly options: SchedulerOptions,
  ) {}

  async list(): Promise<ScheduleView[]> {
    return (await this.repo.list()).map(view);
  }

  async get(id: string): Promise<ScheduleView> {
    const e = await this.repo.get(id);
    if (!e) throw new DomainException(SchedulesExceptionCode.NOT_FOUND, 404, `no schedule ${id}`);
    return view(e);
  }

  /** Creates or replaces an entry; changing the cron or re-enabling recomputes the next firing. */
  /**
   * Creates an entry (`cron` and `topic` required) or changes the given fields of an existing one;
   * `created` tells which, for the 201 or 200.
   */
  async put(id: string, dto: PutScheduleDto): Promise<{ schedule: ScheduleView; created: boolean }> {
    const previous = await this.repo.get(id);
    let fields: ScheduleFieldsDto;
    if (previous) {
      fields = { cron: dto.cron ?? previous.cron, topic: dto.topic ?? previous.topic, payload: dto.payload ?? previous.payload, enabled: dto.enabled ?? previous.enabled };
    } else {
      const missing = (['cron', 'topic'] as const).filter((k) => dto[k] === undefined);
      if (missing.length) {
        throw new DomainException(SchedulesExceptionCode.INVALID, 400, `a new entry needs ${missing.join(' and ')} (no schedule ${id} exists to change)`, {
          details: missing.map((field) => ({ field, problems: [`${field} is required to create an entry`] })),
        });
      }
      fields = { ...dto, cron: dto.cron as string, topic: dto.topic as string };
    }
    const entry = this.build(id, fields, 'operator', previous);
    await this.repo.save(entry);
    return { schedule: view(entry), created: !previous };
  }

  /**
   * Removes an entry: it fires no more (a firing already claimed is still delivered). A module's
   * seeded entry comes back when the module seeds again at its next start; PUT `enabled: false`
   * keeps such an entry off for good.
   */
  async delete(id: string): Promise<void> {
    if (!(await this.repo.delete(id))) throw new DomainException(SchedulesExceptionCode.NOT_FOUND, 404, `no schedule ${id}`);
  }

  /** Inserts entries that do not exist yet; existing ones are never retimed or re-enabled. */
  async seed(dto: SeedSchedulesDto): Promise<{ inserted: string[]; existing: string[] }> {
    const inserted: string[] = [];
    const existing: string[] = [];
    for (const e of dto.entries) {
      if (await this.repo.insertIfAbsent(this.build(e.id, e, 'seed'))) inserted.push(e.id);
      else existing.push(e.id);
    }
    return { inserted, existing };
  }

  private build(id: string, dto: ScheduleFieldsDto, source: ScheduleEntry['source'], previous?: ScheduleEntry): ScheduleEntry {
    if (!SCHEDULE_ID.test(id)) throw new DomainException(SchedulesExceptionCode.INVALID, 400, 'id must be 1-128 letters, digits, dots, dashes or underscores');
    const problem = cronProblem(dto.cron);
    if (problem) throw new DomainException(SchedulesExceptionCode.INVALID, 400, problem, { details: [{ field: 'cron', problems: [problem] }] });
    const now = this.options.now();
    const enabled = dto.enabled ?? true;
    const keepNext = previous && previous.enabled && enabled && previous.cron === dto.cron.trim() && previous.nextRunAt;
    return {
      id,
      cron: dto.cron.trim(),
      topic: dto.topic,
      payload: dto.payload ?? {},
      enabled,
      nextRunAt: enabled ? (keepNext ? previous.nextRunAt : nextRun(dto.cron, now)) : undefined,
      lastFiredAt: previous?.lastFiredAt,
      source: previous?.source === 'seed' && source === 'operator' ? 'operator' : source,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
  }
}
