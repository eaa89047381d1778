/**
 * Admin settings, "Offline downloads": one form per BitTorrent tool (aria2: JSON-RPC URI + secret;
 * Transmission: RPC URL; qBittorrent: Web UI URL; each with its seeding minutes). "Test connection and save"
 * posts set_aria2 / set_transmission / set_qbit: the server checks the connection first and answers the
 * tool's version (then it is saved) or why it cannot be used (then nothing is saved). An empty URL turns
 * the tool off.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { TextField } from '../../components/Field.js';
import { Badge } from '../../components/ui.js';
import type { Setting } from '../../types.js';

interface ToolForm {
  name: string;
  route: string;
  /** Setting key holding the endpoint, and the body field set_<tool> reads it from. */
  urlKey: string;
  field: 'uri' | 'url';
  seedKey: string;
  secretKey?: string;
  placeholder: string;
}

export const OFFLINE_TOOLS: readonly ToolForm[] = [
  { name: 'aria2', route: 'set_aria2', urlKey: 'aria2_uri', field: 'uri', seedKey: 'aria2_seedtime', secretKey: 'aria2_secret', placeholder: 'http://127.0.0.1:6800/jsonrpc' },
  { name: 'Transmission', route: 'set_transmission', urlKey: 'transmission_uri', field: 'uri', seedKey: 'transmission_seedtime', placeholder: 'http://user:password@127.0.0.1:9091/transmission/rpc' },
  { name: 'qBittorrent', route: 'set_qbit', urlKey: 'qbittorrent_url', field: 'url', seedKey: 'qbittorrent_seedtime', placeholder: 'http://user:password@127.0.0.1:8080/' },
];

/** The setting keys these forms own (the generic settings list leaves them out). */
export const OFFLINE_TOOL_KEYS = new Set(OFFLINE_TOOLS.flatMap((t) => [t.urlKey, t.seedKey, ...(t.secretKey ? [t.secretKey] : [])]));

type Outcome = { ok: true; text: string } | { ok: false; text: string } | null;

function ToolSettings({ tool, settings, onSaved }: { tool: ToolForm; settings: Record<string, string>; onSaved: () => unknown }) {
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [seed, setSeed] = useState('0');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const headingId = useId();
  useEffect(() => {
    setUrl(settings[tool.urlKey] ?? '');
    setSecret(tool.secretKey ? (settings[tool.secretKey] ?? '') : '');
    setSeed(settings[tool.seedKey] ?? '0');
  }, [settings, tool]);

  const seedProblem = /^\d+$/.test(seed.trim()) ? null : 'Minutes: a whole number, 0 or more.';
  const test = async () => {
    if (seedProblem) return;
    setBusy(true);
    setOutcome(null);
    try {
      const body: Record<string, unknown> = { [tool.field]: url.trim(), seedtime: Number(seed.trim()) };
      if (tool.secretKey) body.secret = secret;
      const version = await api.post<string>(`/api/admin/setting/${tool.route}`, body);
      setOutcome({ ok: true, text: url.trim() ? `Connected: ${tool.name} ${version}. Saved.` : `${tool.name} turned off.` });
      await onSaved();
    } catch (e) {
      setOutcome({ ok: false, text: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="offline-tool"
      aria-labelledby={headingId}
      onSubmit={(e) => {
        e.preventDefault();
        void test();
      }}
    >
      <h3 id={headingId}>
        {tool.name} {(settings[tool.urlKey] ?? '') ? <Badge tone="ok">configured</Badge> : <Badge>off</Badge>}
      </h3>
      <TextField label={`${tool.name} ${tool.field === 'uri' ? 'URI' : 'URL'}`} hint="Empty turns it off." value={url} onChange={setUrl} placeholder={tool.placeholder} spellCheck={false} autoComplete="off" />
      {tool.secretKey && <TextField label={`${tool.name} secret`} type="password" value={secret} onChange={setSecret} autoComplete="new-password" />}
      <TextField label={`${tool.name} seeding minutes`} value={seed} onChange={setSeed} error={seedProblem} inputMode="numeric" />
      <div className="actions">
        <button type="submit" className="btn" disabled={busy}>
          {busy ? 'Testing…' : 'Test connection and save'}
        </button>
      </div>
      {outcome && (
        <p className={outcome.ok ? 'tool-outcome ok' : 'tool-outcome error'} role={outcome.ok ? 'status' : 'alert'} data-testid={`tool-outcome-${tool.name}`}>
          {outcome.text}
        </p>
      )}
    </form>
  );
}

export function OfflineToolsPanel({ settings, onSaved }: { settings: Setting[]; onSaved: () => unknown }) {
  // stable per load: a re-render must not reset what the admin is typing
  const values = useMemo(() => Object.fromEntries(settings.map((s) => [s.key, s.value])), [settings]);
  return (
    <div className="offline-tools">
      {OFFLINE_TOOLS.map((t) => (
        <ToolSettings key={t.name} tool={t} settings={values} onSaved={onSaved} />
      ))}
    </div>
  );
}
