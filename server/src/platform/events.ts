import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from './bus.js';

export interface HouseholdEvent {
  kind: string;
  data: unknown;
  at: string;
}

/** Live events for a household's dashboards, fanned out through the bus to every instance. */
export class EventPublisher {
  constructor(
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
  ) {}

  publish(householdId: string, kind: string, data: unknown): void {
    const event: HouseholdEvent = { kind, data, at: new Date().toISOString() };
    this.bus
      .publish(`household:${householdId}`, event)
      .catch((err) => this.log.warn({ err, kind }, 'could not publish event'));
  }

  subscribe(householdId: string, handler: (event: HouseholdEvent) => void) {
    return this.bus.subscribe(`household:${householdId}`, (m) => handler(m as HouseholdEvent));
  }
}
