/** Account: profile, password, two-factor authentication, SSH keys, WebDAV and app passwords. */
import { useState } from 'react';
import { api } from '../../api.js';
import { TextField } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { useToast } from '../../components/Toast.js';
import { InlineError, PageHeader } from '../../components/ui.js';
import { ROLE_NAMES } from '../../lib/permissions.js';
import { useSession } from '../../session.js';
import { SshKeysSection } from './SshKeysSection.js';
import { TwoFactorSection } from './TwoFactorSection.js';
import { WebdavSection } from './WebdavSection.js';

export function AccountPage() {
  const { me } = useSession();
  return (
    <section>
      <PageHeader title="Account" subtitle={`Signed in as ${me!.username}`} />
      <ProfileSection />
      <PasswordSection />
      <TwoFactorSection />
      {me!.role !== 1 && <SshKeysSection />}
      {me!.role !== 1 && <WebdavSection />}
    </section>
  );
}

function ProfileSection() {
  const { me, refreshMe } = useSession();
  const toast = useToast();
  const [username, setUsername] = useState(me!.username);
  const { busy, error, setError, run } = useSubmit();
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!username.trim()) return setError('Enter a username.');
    await run(async () => {
      await api.post('/api/me/update', { username: username.trim() });
      await refreshMe();
      toast.success('Profile saved');
    });
  };
  return (
    <form className="card" onSubmit={save} noValidate aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl className="kv" style={{ marginBottom: '1rem' }}>
        <dt>Role</dt>
        <dd>{ROLE_NAMES[me!.role] ?? me!.role}</dd>
        <dt>Home folder</dt>
        <dd className="mono">{me!.base_path}</dd>
      </dl>
      <div className="grid-2">
        <TextField label="Username" autoComplete="username" value={username} onChange={setUsername} error={error} />
      </div>
      <button type="submit" className="btn btn-primary" disabled={busy || username.trim() === me!.username}>
        Save profile
      </button>
    </form>
  );
}

function PasswordSection() {
  const { signOut } = useSession();
  const toast = useToast();
  const [pw, setPw] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (pw.length < 1) return setError('Enter a new password.');
    if (pw !== again) return setError('The two passwords differ.');
    await run(async () => {
      await api.post('/api/me/update', { password: pw });
      toast.success('Password changed. Sign in with the new password.');
      await signOut();
    });
  };
  return (
    <form className="card" onSubmit={save} noValidate aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p className="muted">Changing it signs you out everywhere, this browser included.</p>
      <div className="grid-2">
        <TextField label="New password" type="password" autoComplete="new-password" value={pw} onChange={setPw} />
        <TextField label="Repeat new password" type="password" autoComplete="new-password" value={again} onChange={setAgain} />
      </div>
      <InlineError error={error} />
      <button type="submit" className="btn btn-primary" disabled={busy}>
        Change password
      </button>
    </form>
  );
}
