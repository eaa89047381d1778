import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { notNull, withId } from './helpers.js';

/** Users, settings, lockout, token revocation, 2FA replay guard, SSH keys, storages. */
export function foundation(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('users'), dialect)
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('pwd_hash', 'text', notNull)
        .addColumn('salt', 'text', notNull)
        .addColumn('pwd_ts', 'bigint', notNull)
        .addColumn('base_path', 'text', notNull)
        .addColumn('role', 'integer', notNull)
        .addColumn('disabled', 'integer', notNull)
        .addColumn('permission', 'integer', notNull)
        .addColumn('otp_secret', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('sso_id', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', notNull)
        .execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', notNull)
        .execute();

      await withId(db.schema.createTable('auth_failures'), dialect)
        .addColumn('key', 'text', notNull)
        .addColumn('at', 'bigint', notNull)
        .execute();
      await db.schema.createIndex('auth_failures_key_at').on('auth_failures').columns(['key', 'at']).execute();

      await db.schema
        .createTable('auth_locks')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('until', 'bigint', notNull)
        .execute();

      await db.schema
        .createTable('revoked_tokens')
        .addColumn('jti', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'bigint', notNull)
        .execute();

      await db.schema
        .createTable('used_otp_codes')
        .addColumn('user_id', 'bigint', notNull)
        .addColumn('code', 'text', notNull)
        .addColumn('expires_at', 'bigint', notNull)
        .addPrimaryKeyConstraint('used_otp_codes_pk', ['user_id', 'code'])
        .execute();

      await withId(db.schema.createTable('ssh_keys'), dialect)
        .addColumn('user_id', 'bigint', notNull)
        .addColumn('title', 'text', notNull)
        .addColumn('fingerprint', 'text', notNull)
        .addColumn('key_text', 'text', notNull)
        .addColumn('added_time', 'bigint', notNull)
        .addColumn('last_used_time', 'bigint', notNull)
        .addUniqueConstraint('ssh_keys_user_title', ['user_id', 'title'])
        .addUniqueConstraint('ssh_keys_user_fingerprint', ['user_id', 'fingerprint'])
        .execute();

      await withId(db.schema.createTable('storages'), dialect)
        .addColumn('mount_path', 'text', (c) => c.notNull().unique())
        .addColumn('driver', 'text', notNull)
        .addColumn('order', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('seed_policy', 'text', (c) => c.notNull().defaultTo('inherit'))
        .addColumn('proxy', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('addition', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('modified', 'bigint', notNull)
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['storages', 'ssh_keys', 'used_otp_codes', 'revoked_tokens', 'auth_locks', 'auth_failures', 'settings', 'users']) {
        await db.schema.dropTable(t).execute();
      }
    },
  };
}
