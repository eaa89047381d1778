/** Sign-in: username + password; when the server answers 402 the form asks for the one-time code and retries. */
import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../api.js';
import { TextField } from '../components/Field.js';
import { InlineError } from '../components/ui.js';
import { useSession } from '../session.js';

export function LoginPage() {
  const session = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [needOtp, setNeedOtp] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim()) return setError('Enter your username.');
    if (needOtp && !/^\d{6}$/.test(otp.trim())) return setError('Enter the 6-digit code from your authenticator app.');
    setBusy(true);
    setError(null);
    try {
      const body = { username: username.trim(), password, ...(needOtp ? { otp_code: otp.trim() } : {}) };
      const { token } = await api.post<{ token: string }>('/api/auth/login', body, { auth: false });
      await session.signIn(token);
    } catch (err) {
      if (err instanceof ApiError && err.code === 402) {
        if (needOtp) setError('That code is not valid. Wait for the next one and try again.');
        setNeedOtp(true);
        setOtp('');
      } else if (err instanceof ApiError && err.code === 429) {
        setError('Too many failed attempts. Wait a few minutes and try again.');
      } else {
        setError(errorMessage(err));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login-wrap">
      <form className="card login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
        <div className="login-brand">
          <span className="brand-mark" aria-hidden="true" />
          <h1 id="login-title">{session.settings.site_title || 'Ferry'}</h1>
        </div>
        <p className="muted">Sign in to manage your files.</p>
        <TextField label="Username" name="username" autoComplete="username" value={username} onChange={setUsername} autoFocus={!needOtp} disabled={needOtp} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} disabled={needOtp} />
        {needOtp && (
          <TextField
            label="One-time code"
            name="otp"
            inputMode="numeric"
            autoComplete="one-time-code"
            hint="Two-factor authentication is on for this account: enter the code from your authenticator app."
            value={otp}
            onChange={setOtp}
            autoFocus
            maxLength={6}
          />
        )}
        <InlineError error={error} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Signing in…' : needOtp ? 'Verify and sign in' : 'Sign in'}
        </button>
        {needOtp && (
          <button
            type="button"
            className="btn btn-ghost btn-block"
            onClick={() => {
              setNeedOtp(false);
              setOtp('');
              setError(null);
            }}
          >
            Use another account
          </button>
        )}
      </form>
    </div>
  );
}
