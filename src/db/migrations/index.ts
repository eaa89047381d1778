/**
 * Migrations, in order. Each is a function of the dialect so the same list
 * builds equivalent schemas on SQLite and PostgreSQL.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { foundation } from './0001-foundation.js';
import { storageFiles } from './0002-storage-files.js';
import { hashLookup } from './0003-hash-lookup.js';
import { webdav } from './0004-webdav.js';
import { search } from './0005-search.js';
import { metas } from './0006-metas.js';
import { clientMtime } from './0007-client-mtime.js';
import { searchBulk } from './0008-search-bulk.js';

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-storage-files': storageFiles(dialect),
    '0003-hash-lookup': hashLookup(dialect),
    '0004-webdav': webdav(dialect),
    '0005-search': search(dialect),
    '0006-metas': metas(dialect),
    '0007-client-mtime': clientMtime(),
    '0008-search-bulk': searchBulk(dialect),
  };
}
