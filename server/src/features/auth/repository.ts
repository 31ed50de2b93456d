import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { Database, SessionTable } from '../../platform/db/schema.js';

export type SessionRow = {
  session_id: string;
  csrf_token: string;
  last_seen_at: string;
  parent_id: string;
  username: string;
  role: Selectable<Database['parent']>['role'];
  household_id: string;
  household_name: string;
  household_timezone: string;
};

export class SessionRepository {
  private readonly db: Kysely<Database>;
  /** Every authenticated request looks its session up: a prepared read. */
  private readonly findSession: Prepared<'id', SessionRow>;

  constructor(database: Db) {
    this.db = database.kysely;
    this.findSession = new Prepared(database, (k, p) => SessionRepository.findQuery(k, p('id')));
  }

  /** The session with its parent and household, by the SHA-256 of the cookie. */
  find(id: string): Promise<SessionRow | undefined> {
    return this.findSession.first({ id });
  }

  private static findQuery(db: Kysely<Database>, id: string) {
    return db
      .selectFrom('session')
      .innerJoin('parent', 'parent.id', 'session.parent_id')
      .innerJoin('household', 'household.id', 'parent.household_id')
      .select([
        'session.id as session_id',
        'session.csrf_token',
        'session.last_seen_at',
        'parent.id as parent_id',
        'parent.username',
        'parent.role',
        'household.id as household_id',
        'household.name as household_name',
        'household.timezone as household_timezone',
      ])
      .where('session.id', '=', id);
  }

  async insert(row: SessionTable): Promise<void> {
    await this.db.insertInto('session').values(row).execute();
  }

  exists(id: string) {
    return this.db.selectFrom('session').select('id').where('id', '=', id).executeTakeFirst();
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('session').set({ last_seen_at: at }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('session').where('id', '=', id).execute();
  }

  async deleteIdleBefore(cutoff: string): Promise<number> {
    const result = await this.db.deleteFrom('session').where('last_seen_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
