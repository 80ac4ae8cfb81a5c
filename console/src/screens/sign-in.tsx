import { useState } from 'preact/hooks'
import { ApiError, api, session } from '../api.js'
import { describeError } from '../ui.js'

/** Checks the key with GET /v1/auth/test before keeping it in this tab's sessionStorage. */
export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (environment: string) => void }) {
  const [key, setKey] = useState('')
  const [error, setError] = useState<unknown>(undefined)
  const [checking, setChecking] = useState(false)

  async function submit(event: Event) {
    event.preventDefault()
    setChecking(true)
    setError(undefined)
    try {
      const check = await api.checkKey(key.trim())
      session.signIn(key.trim())
      onSignedIn(check.environment)
    } catch (failure) {
      setError(failure)
    } finally {
      setChecking(false)
    }
  }

  return (
    <section class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to barstock</h1>
      {notice && (
        <p class="notice" role="alert">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
            aria-invalid={error instanceof ApiError ? true : undefined}
            aria-describedby="api-key-help api-key-error"
          />
          <p id="api-key-help" class="help">
            Kept in this browser tab only, until you sign out or close it. A manager creates keys with
            <code> barstock keys create</code>.
          </p>
          <p id="api-key-error" class="error" role="alert">
            {error ? describeError(error) : ''}
          </p>
        </div>
        <button type="submit" disabled={checking || key.trim() === ''}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </section>
  )
}
