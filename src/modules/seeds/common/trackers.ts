/** Tracker URLs: the announce URL check shared by generation, upload sidecars and edits, and the default list. */
import type { SettingsReader } from '../../settings/settings.service.js';

/** An announce URL: http(s) or udp with a host, no credentials. Null when fine, else the problem. */
export function trackerProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (!['http:', 'https:', 'udp:'].includes(u.protocol)) return `scheme ${u.protocol.replace(/:$/, '')} is not http, https or udp`;
  if (!u.hostname) return 'has no host';
  if (u.username || u.password) return 'must not carry credentials';
  if (u.protocol === 'udp:' && !u.port) return 'udp trackers need a port';
  return null;
}

/** The `seed_default_trackers` setting: one URL per line, blank lines dropped. */
export async function defaultTrackers(settings: SettingsReader, opts: { validOnly: boolean }): Promise<string[]> {
  const lines = (await settings.get('seed_default_trackers')).split(/\r?\n/).map((t) => t.trim()).filter((t) => t !== '');
  return opts.validOnly ? lines.filter((t) => trackerProblem(t) === null) : lines;
}
