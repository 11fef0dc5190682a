import { useState, type SubmitEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { useSession } from '../session';
import { ErrorMessage } from '../components/States';

/**
 * Sign in with a bearer token (development: `LEDGER_ENV=development npm run -s token -- --role pit-manager --sub pm-1`).
 * The token is checked by the API (`GET /me`); the console never holds a signing key. When a session
 * ended by itself (the token expired, or the API refuses it now) the page says so.
 */
export function SignInPage() {
  const { principal, ended, signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/tables';
  if (principal) return <Navigate to={from} replace />;

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      navigate(from, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Baccarat ledger console</h1>
      {ended ? (
        <p className="notice" role="status" data-testid="session-ended">
          {ended}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <label htmlFor="token">Token</label>
        <textarea id="token" name="token" rows={4} value={token} onChange={(e) => setToken(e.target.value)} required autoComplete="off" spellCheck={false} />
        <p className="muted">
          A bearer token of the ledger API. For local use: <code>LEDGER_ENV=development npm run -s token -- --role pit-manager --sub pm-1</code>
        </p>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      {error ? <ErrorMessage error={error} /> : null}
    </main>
  );
}
