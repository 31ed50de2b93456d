import type { LiveEventData, LiveEventKind } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from './bus.js';

/** A live event for a household's dashboards (kinds and data: protocol/src/live-events.ts). */
export interface HouseholdEvent {
  /** Time-ordered: `<epoch ms, base 36>-<counter>`, so Last-Event-ID can resume on any instance. */
  id: string;
  household_id: string;
  kind: LiveEventKind;
  data: LiveEventData[LiveEventKind];
  at: string;
}

export const EVENTS_CHANNEL = 'events';

let counter = 0;
export function newEventId(now = Date.now()): string {
  counter = (counter + 1) % 1_000_000;
  return `${now.toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

export const eventTime = (id: string): number => Number.parseInt(id.split('-')[0] ?? '', 36) || 0;

/** Publishes household events to every instance through the bus. */
export class EventPublisher {
  constructor(
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
  ) {}

  publish<K extends LiveEventKind>(householdId: string, kind: K, data: LiveEventData[K]): void {
    const event: HouseholdEvent = {
      id: newEventId(),
      household_id: householdId,
      kind,
      data,
      at: new Date().toISOString(),
    };
    this.bus
      .publish(EVENTS_CHANNEL, event)
      .catch((err) => this.log.warn({ err, kind }, 'could not publish event'));
  }
}
