/**
 * "Offline download" on the files page (permission bit 2 and write access): URLs, magnet links or stored
 * `.torrent` paths (one a line) and `.torrent` files from this computer (sent as data: URLs), the tool (`/api/public/offline_download_tools`) and what happens to the
 * tool's copy afterwards; posts `/api/fs/add_offline_download` into the current folder. The queued tasks are
 * listed with a link to the tasks panel, where their progress, cancel and retry live.
 */
import { useEffect, useState, type ChangeEvent } from 'react';
import { api } from '../../api.js';
import { SelectField, TextArea } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { href, Link } from '../../router.js';
import type { TaskInfo } from '../../types.js';

const POLICIES = [
  { value: 'delete_on_upload_succeed', label: 'Delete the tool\'s copy once transferred' },
  { value: 'delete_on_upload_failed', label: 'Delete the tool\'s copy only if the transfer fails' },
  { value: 'delete_never', label: 'Keep the tool\'s copy' },
  { value: 'delete_always', label: 'Always delete the tool\'s copy' },
];

const TOOL_HINT: Record<string, string> = {
  SimpleHttp: 'Ferry fetches http(s) URLs itself (private and loopback addresses are refused).',
  aria2: 'Magnets and .torrent files through aria2.',
  Transmission: 'Magnets and .torrent files through Transmission.',
  qBittorrent: 'Magnets and .torrent files through qBittorrent.',
};

interface PickedTorrent {
  name: string;
  /** `data:…;base64,…` as FileReader gives it: what add_offline_download takes for an uploaded .torrent. */
  url: string;
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error(`could not read ${file.name}`));
    r.readAsDataURL(file);
  });
}

export function OfflineDownloadDialog({ dir, onClose }: { dir: string; onClose: () => void }) {
  const [tools, setTools] = useState<string[] | null>(null);
  const [tool, setTool] = useState('');
  const [urls, setUrls] = useState('');
  const [torrents, setTorrents] = useState<PickedTorrent[]>([]);
  const [policy, setPolicy] = useState(POLICIES[0]!.value);
  const [queued, setQueued] = useState<TaskInfo[] | null>(null);
  const { busy, error, setError, run } = useSubmit();

  useEffect(() => {
    let live = true;
    api
      .get<string[]>('/api/public/offline_download_tools')
      .then((t) => {
        if (!live) return;
        setTools(t);
        // a BitTorrent tool when one is configured: magnets are what people paste most
        setTool(t.find((x) => x !== 'SimpleHttp') ?? t[0] ?? '');
      })
      .catch((e: unknown) => live && setError(String((e as Error).message ?? e)));
    return () => {
      live = false;
    };
  }, [setError]);

  const lines = urls.split('\n').map((l) => l.trim()).filter(Boolean);
  const count = lines.length + torrents.length;
  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    const files = [...(e.target.files ?? [])];
    e.target.value = '';
    setError(null);
    try {
      const picked = await Promise.all(files.map(async (f) => ({ name: f.name, url: await readAsDataUrl(f) })));
      setTorrents((t) => [...t, ...picked]);
    } catch (err) {
      setError(String((err as Error).message ?? err));
    }
  };
  const submit = async () => {
    if (count === 0) return setError('Enter at least one URL, magnet link or .torrent path, or add a .torrent file.');
    await run(async () => {
      const r = await api.post<{ tasks: TaskInfo[] }>('/api/fs/add_offline_download', { urls: [...lines, ...torrents.map((t) => t.url)], path: dir, tool, delete_policy: policy });
      setQueued(r.tasks);
    });
  };

  if (queued)
    return (
      <Modal open wide title="Offline download queued" onClose={onClose} footer={<button type="button" className="btn btn-primary" onClick={onClose} data-autofocus>Close</button>}>
        <p>
          {queued.length === 1 ? 'One download' : `${queued.length} downloads`} queued into <span className="mono">{dir}</span>. The files appear here once
          downloaded and transferred.
        </p>
        <ul aria-label="Queued downloads" className="offline-queued">
          {queued.map((t) => (
            <li key={t.id} className="mono small">{t.name}</li>
          ))}
        </ul>
        <Link className="btn" to={href('/tasks', { type: 'offline_download' })}>
          Open tasks
        </Link>
      </Modal>
    );

  return (
    <Modal
      open
      wide
      title="Offline download"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={<ModalActions onCancel={onClose} submitLabel={busy ? 'Queuing…' : 'Download'} disabled={busy || tools === null || count === 0} />}
    >
      <div className="offline-dialog">
        <p className="muted">
          Into <span className="mono">{dir}</span>
        </p>
        <TextArea
          label="URLs, magnet links or .torrent paths"
          hint="One a line. A stored .torrent by its path in Ferry (e.g. /torrents/x.torrent)."
          value={urls}
          onChange={(v) => {
            setError(null);
            setUrls(v);
          }}
          rows={5}
          spellCheck={false}
          placeholder={'magnet:?xt=urn:btih:…\nhttps://example.org/file.iso'}
        />
        {tool !== 'SimpleHttp' && (
          <div className="offline-torrents">
            <label className="btn">
              Add .torrent files…
              <input type="file" accept=".torrent,application/x-bittorrent" multiple hidden onChange={(e) => void pick(e)} />
            </label>
            {torrents.length > 0 && (
              <ul aria-label="Torrent files" className="offline-queued">
                {torrents.map((t, i) => (
                  <li key={`${i}-${t.name}`} className="mono small">
                    {t.name}{' '}
                    <button type="button" className="btn btn-small" aria-label={`Remove ${t.name}`} onClick={() => setTorrents((all) => all.filter((_, k) => k !== i))}>
                      Remove
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {tools === null ? (
          !error && <Spinner label="Loading tools…" />
        ) : (
          <SelectField label="Tool" hint={TOOL_HINT[tool]} value={tool} onChange={setTool} options={tools} />
        )}
        {tool !== 'SimpleHttp' && <SelectField label="After the transfer" value={policy} onChange={setPolicy} options={POLICIES} />}
        <InlineError error={error} />
      </div>
    </Modal>
  );
}
