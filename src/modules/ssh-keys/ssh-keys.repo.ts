import type { Kysely, Selectable } from 'kysely';
import type { DB, SshKeysTable } from '../../db/schema.js';

export type SshKeyRow = Selectable<SshKeysTable>;

/** Kysely queries for SSH public keys; no rules. */
export class SshKeysRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async listByUser(userId: number, offset: number, limit: number | null): Promise<{ rows: SshKeyRow[]; total: number }> {
    // SQLite needs a LIMIT before an OFFSET.
    const q = this.db.selectFrom('ssh_keys').selectAll().where('user_id', '=', userId).orderBy('id').limit(limit ?? Number.MAX_SAFE_INTEGER).offset(offset);
    const [rows, count] = await Promise.all([
      q.execute(),
      this.db.selectFrom('ssh_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  byId(id: number): Promise<SshKeyRow | undefined> {
    return this.db.selectFrom('ssh_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findDuplicate(userId: number, title: string, fingerprint: string): Promise<SshKeyRow | undefined> {
    return this.db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('title', '=', title), eb('fingerprint', '=', fingerprint)]))
      .executeTakeFirst();
  }

  async insert(row: Omit<SshKeyRow, 'id'>): Promise<void> {
    await this.db.insertInto('ssh_keys').values(row).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('ssh_keys').where('id', '=', id).execute();
  }

  async touch(id: number, at: number): Promise<void> {
    await this.db.updateTable('ssh_keys').set({ last_used_time: at }).where('id', '=', id).execute();
  }
}
