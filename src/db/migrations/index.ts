/**
 * Migrations, in order. Each is a function of the dialect so the same list
 * builds equivalent schemas on SQLite and PostgreSQL.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { foundation } from './0001-foundation.js';
import { storageFiles } from './0002-storage-files.js';
import { hashLookup } from './0003-hash-lookup.js';

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-storage-files': storageFiles(dialect),
    '0003-hash-lookup': hashLookup(dialect),
  };
}
