/** The public shape of an SSH key record (contract §6): never the key text or its owner. */
import { isoTime } from '../../lib/time.js';
import type { SshKeyRow } from './ssh-keys.repo.js';
import type { KeyView } from './ssh-keys.schemas.js';

export function presentKey(r: SshKeyRow): KeyView {
  return {
    id: Number(r.id),
    title: r.title,
    fingerprint: r.fingerprint,
    added_time: isoTime(Number(r.added_time)),
    last_used_time: isoTime(Number(r.last_used_time)),
  };
}
