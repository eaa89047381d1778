/** Every query on `app_passwords` (no rules). */
import type { Kysely, Selectable } from 'kysely';
import type { AppPasswordsTable, DB } from '../../db/schema.js';

export type AppPasswordRow = Selectable<AppPasswordsTable>;

export class AppPasswordsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async listByUser(userId: number): Promise<AppPasswordRow[]> {
    return this.db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  async countByUser(userId: number): Promise<number> {
    const r = await this.db.selectFrom('app_passwords').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async insert(row: { user_id: number; name: string; pwd_hash: string; salt: string; created_at: number }): Promise<AppPasswordRow> {
    return this.db.insertInto('app_passwords').values({ ...row, last_used_time: 0 }).returningAll().executeTakeFirstOrThrow();
  }

  /** Deletes one of the user's app passwords; false when there is no such row of theirs. */
  async deleteOwn(userId: number, id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('app_passwords').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async exists(id: number): Promise<boolean> {
    return (await this.db.selectFrom('app_passwords').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async touch(id: number, at: number): Promise<void> {
    await this.db.updateTable('app_passwords').set({ last_used_time: at }).where('id', '=', id).execute();
  }
}
