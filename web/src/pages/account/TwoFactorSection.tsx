/** Two-factor authentication: set up (QR code + secret + code → verify) or turn off with a current code. */
import { useState } from 'react';
import { api } from '../../api.js';
import { TextField } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { useToast } from '../../components/Toast.js';
import { Badge, CopyButton, InlineError } from '../../components/ui.js';
import { useSession } from '../../session.js';

export function TwoFactorSection() {
  const { me, refreshMe } = useSession();
  const toast = useToast();
  const [setup, setSetup] = useState<{ qr: string; secret: string } | null>(null);
  const [code, setCode] = useState('');
  const { busy, error, setError, run: act } = useSubmit();
  const validCode = () => {
    if (/^\d{6}$/.test(code.trim())) return true;
    setError('Enter the 6-digit code from your authenticator app.');
    return false;
  };

  const begin = () => act(async () => setSetup(await api.post<{ qr: string; secret: string }>('/api/auth/2fa/generate')));
  const verify = () => {
    if (!setup || !validCode()) return;
    void act(async () => {
      await api.post('/api/auth/2fa/verify', { code: code.trim(), secret: setup.secret });
      setSetup(null);
      setCode('');
      await refreshMe();
      toast.success('Two-factor authentication is on');
    });
  };
  const disable = () => {
    if (!validCode()) return;
    void act(async () => {
      await api.post('/api/auth/2fa/disable', { code: code.trim() });
      setCode('');
      await refreshMe();
      toast.success('Two-factor authentication is off');
    });
  };

  return (
    <section className="card" aria-labelledby="tfa-title">
      <div className="section-title">
        <h2 id="tfa-title">Two-factor authentication</h2>
        {me!.otp ? <Badge tone="ok">On</Badge> : <Badge>Off</Badge>}
      </div>
      {me!.otp ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            disable();
          }}
          noValidate
        >
          <p className="muted">Signing in asks for a code from your authenticator app. To turn this off, enter a current code.</p>
          <div className="grid-2">
            <TextField label="Current code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} />
          </div>
          <InlineError error={error} />
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Turn off two-factor authentication
          </button>
        </form>
      ) : setup ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            verify();
          }}
          noValidate
        >
          <p>Scan the QR code with an authenticator app (or type the secret), then enter the code it shows.</p>
          <div className="row" style={{ alignItems: 'flex-start', gap: '1.25rem' }}>
            <img className="qr" src={setup.qr} alt="QR code of the two-factor secret" />
            <div className="stack" style={{ flex: 1, minWidth: 220 }}>
              <div>
                <div className="field-hint">Secret</div>
                <div className="row">
                  <code className="secret" data-testid="totp-secret">
                    {setup.secret}
                  </code>
                  <CopyButton text={setup.secret} />
                </div>
              </div>
              <TextField label="Code from the app" inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} autoFocus />
              <InlineError error={error} />
              <div className="row">
                <button type="submit" className="btn btn-primary" disabled={busy}>
                  Verify and turn on
                </button>
                <button
                  type="button"
                  className="btn btn-ghost"
                  onClick={() => {
                    setSetup(null);
                    setCode('');
                    setError(null);
                  }}
                >
                  Cancel
                </button>
              </div>
            </div>
          </div>
        </form>
      ) : (
        <>
          <p className="muted">Protect your account with a one-time code from an authenticator app in addition to your password.</p>
          <InlineError error={error} />
          <button type="button" className="btn btn-primary" onClick={() => void begin()} disabled={busy}>
            Set up two-factor authentication
          </button>
        </>
      )}
    </section>
  );
}
