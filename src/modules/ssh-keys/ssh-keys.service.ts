/** SSH public keys of users (contract §6): add, list, delete; lookup for SFTP logins. */
import { presentKey } from './ssh-keys.present.js';
import { isUniqueViolation } from '../../db/errors.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { isoTime } from '../../lib/time.js';
import type { SshKeysRepo, SshKeyRow } from './ssh-keys.repo.js';
import { InvalidKeyError, parsePublicKey } from './public-key.js';

export const KEY_NOT_FOUND = 'failed to get public key';

export class SshKeysService {
  constructor(private readonly repo: SshKeysRepo) {}

  async list(userId: number, offset: number, limit: number | null) {
    const { rows, total } = await this.repo.listByUser(userId, offset, limit);
    return { content: rows.map(presentKey), total };
  }

  async add(userId: number, title: string, key: string): Promise<void> {
    const t = title.trim();
    if (t === '' || t.length > 64) throw badRequest('title: must be 1-64 characters');
    let parsed;
    try {
      parsed = parsePublicKey(key);
    } catch (e) {
      if (e instanceof InvalidKeyError) throw badRequest('provided key invalid', { reason: e.message });
      throw e;
    }
    const dup = await this.repo.findDuplicate(userId, t, parsed.fingerprint);
    if (dup) throw conflict(dup.title === t ? 'key with the same title already exists' : 'this key is already registered');
    const now = Date.now();
    try {
      await this.repo.insert({ user_id: userId, title: t, fingerprint: parsed.fingerprint, key_text: parsed.canonical, added_time: now, last_used_time: now });
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict('key with the same title or key already exists');
      throw e;
    }
  }

  /** Deletes a key of `userId`; another user's key is as unknown as a missing one. */
  async deleteOwn(userId: number, id: number): Promise<void> {
    const row = await this.repo.byId(id);
    if (!row || Number(row.user_id) !== userId) throw notFound(KEY_NOT_FOUND);
    await this.repo.delete(id);
  }

  /** Admin: deletes any key. */
  async deleteAny(id: number): Promise<void> {
    const row = await this.repo.byId(id);
    if (!row) throw notFound(KEY_NOT_FOUND);
    await this.repo.delete(id);
  }
}
