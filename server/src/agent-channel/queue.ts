import { MAX_QUEUED_COMMANDS, OVERLAY_COMMAND_TTL_MS } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import { creationIso, nowIso } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import { conflict } from '../platform/errors.js';
import { CommandQueueRepository } from './queue-repository.js';

/** A queued command that is sent this many times without an answer is given up. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** How a command waits for an offline device. */
export interface QueuePolicy {
  /** Overlay commands are stale after ten minutes; others wait until delivered. */
  ttlMs?: number;
  /** A policy push replaces an older queued push of the same kind. */
  coalesceKey?: string;
}

export function queuePolicyFor(command: string): QueuePolicy {
  if (command === 'show_overlay' || command === 'dismiss_overlay') return { ttlMs: OVERLAY_COMMAND_TTL_MS };
  if (command.startsWith('sync_') || command === 'refresh_installed_apps') return { coalesceKey: command };
  return {};
}

/** The durable per-device queue of commands for devices that are offline. */
export class CommandQueue {
  private readonly repo: CommandQueueRepository;

  constructor(private readonly db: Kysely<Database>) {
    this.repo = new CommandQueueRepository(db);
  }

  async enqueue(
    systemId: string,
    command: string,
    args: Record<string, unknown>,
    policy = queuePolicyFor(command),
  ): Promise<string> {
    const id = newId();
    await this.db.transaction().execute(async (trx) => {
      const repo = new CommandQueueRepository(trx);
      if (policy.coalesceKey) await repo.deleteCoalesced(systemId, policy.coalesceKey);
      if ((await repo.count(systemId)) >= MAX_QUEUED_COMMANDS) {
        throw conflict(
          `The device already has ${MAX_QUEUED_COMMANDS} commands waiting; they are sent when it comes online.`,
        );
      }
      await repo.insert({
        id,
        system_id: systemId,
        command,
        args: JSON.stringify(args),
        coalesce_key: policy.coalesceKey ?? null,
        attempts: 0,
        created_at: creationIso(),
        expires_at: policy.ttlMs ? new Date(Date.now() + policy.ttlMs).toISOString() : null,
      });
    });
    return id;
  }

  due(systemId: string) {
    return this.repo.due(systemId, nowIso());
  }

  markAttempt(ids: string[]) {
    return this.repo.markAttempt(ids);
  }

  remove(id: string) {
    return this.repo.delete(id);
  }

  list(systemId: string) {
    return this.repo.list(systemId);
  }

  /** Worker task: drops expired commands and those that were never answered. */
  prune(): Promise<number> {
    return this.repo.deleteExpired(nowIso(), MAX_DELIVERY_ATTEMPTS);
  }
}
