/** Admin: settings, grouped, each with its help text; saves only what changed (all or nothing on the server). */
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { CheckboxField, SelectField, TextArea, TextField } from '../../components/Field.js';
import { useSubmit, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { useToast } from '../../components/Toast.js';
import { CopyButton, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { useSession } from '../../session.js';
import type { Setting } from '../../types.js';
import { IndexPanel } from './IndexPanel.js';
import { OFFLINE_TOOL_KEYS, OfflineToolsPanel } from './OfflineToolsPanel.js';

const GROUPS: Record<string, { title: string; intro: string }> = {
  site: { title: 'Site', intro: 'Name and API compatibility.' },
  security: { title: 'Security', intro: 'Sign-in tokens and download links.' },
  sftp: { title: 'SFTP', intro: 'Access over SFTP.' },
  index: { title: 'Search', intro: 'The name index behind search (build/update/clear above).' },
  seed: { title: 'Transfer seeds', intro: 'Defaults for .oss / .torrent / .cas sidecars, the seed wizard and sources.' },
  display: { title: 'OpenList web UI', intro: 'What the official OpenList web UI reads to show itself; Ferry\'s own UI ignores these.' },
  offline: { title: 'Offline downloads', intro: 'aria2, Transmission and qBittorrent: each is saved only after its connection is checked (set_aria2 / set_transmission / set_qbit). Plain http(s) through tools below.' },
};

function problem(s: Setting, v: string): string | null {
  if (s.type === 'number' && (v.trim() === '' || !Number.isFinite(Number(v)))) return 'Enter a number.';
  if (s.kind === 'json') {
    try {
      JSON.parse(v);
    } catch {
      return 'Not valid JSON.';
    }
  }
  return null;
}

const fetchSettings = () => api.get<Setting[]>('/api/admin/setting/list');

export function SettingsPage() {
  const toast = useToast();
  const { confirm } = useDialogs();
  const session = useSession();
  const { data: settings, error: loadError, reload } = useServerData(queryKeys.settings, fetchSettings);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const { busy, error, setError, run } = useSubmit();
  const act = useToastAction(reload);
  // Every (re)load starts the draft from the stored values.
  useEffect(() => setDraft(Object.fromEntries((settings ?? []).map((s) => [s.key, s.value]))), [settings]);

  const changed = useMemo(() => (settings ?? []).filter((s) => s.key !== 'token' && draft[s.key] !== s.value), [settings, draft]);
  const problems = useMemo(() => Object.fromEntries(changed.map((s) => [s.key, problem(s, draft[s.key] ?? '')]).filter(([, p]) => p)), [changed, draft]);
  const groups = useMemo(() => {
    const m = new Map<string, Setting[]>();
    // the tool endpoints are set through their own forms (checked by the server), not the generic list
    for (const s of settings ?? []) if (!OFFLINE_TOOL_KEYS.has(s.key)) m.set(s.section, [...(m.get(s.section) ?? []), s]);
    return [...m.entries()].sort(([a], [b]) => Object.keys(GROUPS).indexOf(a) - Object.keys(GROUPS).indexOf(b));
  }, [settings]);

  const save = async () => {
    if (Object.keys(problems).length) return setError('Fix the settings marked below.');
    await run(async () => {
      await api.post('/api/admin/setting/save', changed.map((s) => ({ key: s.key, value: draft[s.key] ?? '' })));
      toast.success(`Saved ${changed.length} setting${changed.length === 1 ? '' : 's'}`);
      await reload();
      await session.refreshSettings();
    });
  };

  const resetToken = async () => {
    if (!(await confirm({ title: 'Generate a new admin API token?', message: 'Programs using the current token stop working.', confirmLabel: 'Generate', danger: true }))) return;
    await act(() => api.post('/api/admin/setting/reset_token'), 'New admin API token generated');
  };

  const field = (s: Setting) => {
    const v = draft[s.key] ?? '';
    const set = (nv: string) => setDraft((d) => ({ ...d, [s.key]: nv }));
    const label = <span className="mono">{s.key}</span>;
    const err = problems[s.key] ?? null;
    if (s.key === 'token')
      return (
        <div className="field" key={s.key}>
          <span className="field-label">{label}</span>
          <div className="link-box">
            <input className="input mono" readOnly value={s.value} aria-label="Admin API token" type="password" />
            <CopyButton text={s.value} />
            <button type="button" className="btn btn-small" onClick={() => void resetToken()}>
              Reset
            </button>
          </div>
          <div className="field-hint">{s.help}</div>
        </div>
      );
    if (s.type === 'bool') return <CheckboxField key={s.key} label={label} hint={s.help} checked={v === 'true'} onChange={(on) => set(String(on))} />;
    if (s.type === 'select') return <SelectField key={s.key} label={label} hint={s.help} value={v} onChange={set} options={s.options.split(',').filter(Boolean)} />;
    if (s.kind === 'text' || s.kind === 'json')
      return <TextArea key={s.key} label={label} hint={s.help} error={err} value={v} onChange={set} rows={s.kind === 'json' ? 4 : 3} spellCheck={false} />;
    return <TextField key={s.key} label={label} hint={s.help} error={err} value={v} onChange={set} inputMode={s.type === 'number' ? 'decimal' : undefined} />;
  };

  return (
    <section>
      <PageHeader
        title="Settings"
        subtitle="Stored in the database; every instance sharing it uses them."
        actions={
          <button type="button" className="btn btn-primary" disabled={busy || changed.length === 0} onClick={() => void save()}>
            {changed.length ? `Save ${changed.length} change${changed.length === 1 ? '' : 's'}` : 'No changes'}
          </button>
        }
      />
      <InlineError error={error ?? loadError} />
      <IndexPanel />
      {settings === null
        ? !loadError && <Spinner />
        : groups.map(([group, list]) => (
            <section key={group} className="card" aria-labelledby={`group-${group}`}>
              <h2 id={`group-${group}`}>{GROUPS[group]?.title ?? group}</h2>
              {GROUPS[group] && <p className="muted">{GROUPS[group].intro}</p>}
              {group === 'offline' && settings && <OfflineToolsPanel settings={settings} onSaved={reload} />}
              <div className="settings-list">{list.map(field)}</div>
            </section>
          ))}
    </section>
  );
}
