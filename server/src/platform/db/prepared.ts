import type { Compilable, Kysely } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

const MARK = '\u0000hearth-param:';

/**
 * A read built once with Kysely and then run many times with new parameters: no query building or
 * compiling per request, only the dialect's prepared statement. For the hottest routes (bearer and
 * session authentication, the registration check, listing children).
 *
 * `build` receives `param(name)`, which stands for a value given at run time.
 */
export class Prepared<P extends string, R> {
  private compiled: { run: (params: readonly unknown[]) => Promise<R[]>; order: P[] } | null = null;

  constructor(
    private readonly db: Db,
    private readonly build: (kysely: Kysely<Database>, param: (name: P) => string) => Compilable<R>,
  ) {}

  private compile(): { run: (params: readonly unknown[]) => Promise<R[]>; order: P[] } {
    if (this.compiled) return this.compiled;
    const query = this.build(this.db.kysely, (name) => `${MARK}${name}`).compile();
    const order = query.parameters.map((value) => {
      if (typeof value !== 'string' || !value.startsWith(MARK)) {
        throw new Error(
          `Prepared queries take every value as a parameter; found a literal ${JSON.stringify(value)}`,
        );
      }
      return value.slice(MARK.length) as P;
    });
    this.compiled = { run: this.db.reader<R>(query.sql), order };
    return this.compiled;
  }

  all(params: Record<P, unknown>): Promise<R[]> {
    const { run, order } = this.compile();
    return run(order.map((name) => params[name]));
  }

  async first(params: Record<P, unknown>): Promise<R | undefined> {
    return (await this.all(params))[0];
  }
}
