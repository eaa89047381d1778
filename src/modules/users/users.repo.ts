import type { Kysely, Selectable, Updateable } from 'kysely';
import type { DB, UsersTable } from '../../db/schema.js';
import type { User } from './user.model.js';
import { compiledOnce } from '../../db/compiled-once.js';

function toUser(r: Selectable<UsersTable>): User {
  return {
    id: Number(r.id),
    username: r.username,
    pwdHash: r.pwd_hash,
    salt: r.salt,
    pwdTs: Number(r.pwd_ts),
    basePath: r.base_path,
    role: r.role,
    disabled: r.disabled === 1,
    permission: r.permission,
    otpSecret: r.otp_secret,
    ssoId: r.sso_id,
  };
}

export type UserPatch = Partial<Omit<User, 'id'>>;

function toRow(p: UserPatch): Updateable<UsersTable> {
  const row: Updateable<UsersTable> = {};
  if (p.username !== undefined) row.username = p.username;
  if (p.pwdHash !== undefined) row.pwd_hash = p.pwdHash;
  if (p.salt !== undefined) row.salt = p.salt;
  if (p.pwdTs !== undefined) row.pwd_ts = p.pwdTs;
  if (p.basePath !== undefined) row.base_path = p.basePath;
  if (p.role !== undefined) row.role = p.role;
  if (p.disabled !== undefined) row.disabled = p.disabled ? 1 : 0;
  if (p.permission !== undefined) row.permission = p.permission;
  if (p.otpSecret !== undefined) row.otp_secret = p.otpSecret;
  if (p.ssoId !== undefined) row.sso_id = p.ssoId;
  return row;
}

/** The query behind every authenticated request (see UsersRepo.forToken), compiled once. */
const forTokenQueryOf = (db: Kysely<DB>) =>
  compiledOnce(db, 2, (username: string, jti: string) =>
    db
      .selectFrom('users')
      .selectAll('users')
      .select((eb) => eb.exists(eb.selectFrom('revoked_tokens').select('revoked_tokens.jti').where('revoked_tokens.jti', '=', jti)).as('revoked'))
      .where('users.username', '=', username),
  );

/** Kysely queries for users; no rules. */
export class UsersRepo {
  private readonly forTokenQuery: ReturnType<typeof forTokenQueryOf>;

  constructor(private readonly db: Kysely<DB>) {
    this.forTokenQuery = forTokenQueryOf(db);
  }

  async byId(id: number): Promise<User | null> {
    const r = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async byUsername(username: string): Promise<User | null> {
    const r = await this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  /**
   * What authenticating a login token needs, in one query (one per authenticated request): the user it names
   * (null when gone) and whether the token `jti` was revoked (only known when the user exists: the caller asks
   * the revocations itself otherwise).
   */
  async forToken(username: string, jti: string): Promise<{ user: User; revoked: boolean } | null> {
    const [r] = await this.forTokenQuery(username, jti);
    // PostgreSQL answers a boolean, SQLite 0/1.
    return r ? { user: toUser(r), revoked: Number(r.revoked) === 1 } : null;
  }


  /**
   * The user and whether SSH key `keyId` (when given) is still one of theirs, in one query
   * on the two primary keys: what an open SFTP session re-checks (null: the user is gone).
   */
  async withKey(id: number, keyId: number | null, appPasswordId: number | null = null): Promise<{ user: User; keyPresent: boolean; appPasswordPresent: boolean } | null> {
    const r = await this.db
      .selectFrom('users')
      .selectAll('users')
      .select((eb) => [
        eb
          .exists(eb.selectFrom('ssh_keys').select('ssh_keys.id').where('ssh_keys.id', '=', keyId ?? -1).whereRef('ssh_keys.user_id', '=', 'users.id'))
          .as('key_present'),
        eb
          .exists(eb.selectFrom('app_passwords').select('app_passwords.id').where('app_passwords.id', '=', appPasswordId ?? -1).whereRef('app_passwords.user_id', '=', 'users.id'))
          .as('app_password_present'),
      ])
      .where('users.id', '=', id)
      .executeTakeFirst();
    if (!r) return null;
    // PostgreSQL answers a boolean, SQLite 0/1.
    return {
      user: toUser(r),
      keyPresent: keyId !== null && Number(r.key_present) === 1,
      appPasswordPresent: appPasswordId !== null && Number(r.app_password_present) === 1,
    };
  }

  async byRole(role: number): Promise<User | null> {
    const r = await this.db.selectFrom('users').selectAll().where('role', '=', role).orderBy('id').executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async list(offset: number, limit: number | null): Promise<{ users: User[]; total: number }> {
    // SQLite needs a LIMIT before an OFFSET.
    const q = this.db.selectFrom('users').selectAll().orderBy('id').limit(limit ?? Number.MAX_SAFE_INTEGER).offset(offset);
    const [rows, count] = await Promise.all([
      q.execute(),
      this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { users: rows.map(toUser), total: Number(count.n) };
  }

  async insert(u: Omit<User, 'id'>): Promise<User> {
    const row = { ...(toRow(u) as Omit<Selectable<UsersTable>, 'id'>), created_at: Date.now() };
    const r = await this.db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
    return toUser(r);
  }

  async update(id: number, patch: UserPatch): Promise<void> {
    const row = toRow(patch);
    if (Object.keys(row).length === 0) return;
    await this.db.updateTable('users').set(row).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('ssh_keys').where('user_id', '=', id).execute();
      await trx.deleteFrom('used_otp_codes').where('user_id', '=', id).execute();
      await trx.deleteFrom('shares').where('creator_id', '=', id).execute();
      await trx.deleteFrom('users').where('id', '=', id).execute();
    });
  }
}
