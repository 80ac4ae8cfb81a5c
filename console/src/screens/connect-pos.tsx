import { useState } from 'preact/hooks'
import { ApiError, type NewPosConnection, api, newIdempotencyKey } from '../api.js'
import { ErrorNote, LocationSelect } from '../ui.js'

interface CredentialField {
  name: string
  label: string
  /** Masked as it is typed: a password, a token, a secret. */
  secret?: boolean
  optional?: boolean
}

/**
 * The credential fields a person types for each POS, as docs/pos.md lists them (the API checks them and
 * names a wrong one in `details.parameter`). Fields only an OAuth flow fills (refresh tokens, expiry) are
 * left out: a manager pastes an access token.
 */
const POS_TYPES: Array<{ posType: string; label: string; fields: CredentialField[] }> = [
  {
    posType: 'square',
    label: 'Square',
    fields: [
      { name: 'access_token', label: 'Access token', secret: true },
      { name: 'location_id', label: 'Location ID' },
    ],
  },
  {
    posType: 'toast',
    label: 'Toast',
    fields: [
      { name: 'client_id', label: 'Client ID' },
      { name: 'client_secret', label: 'Client secret', secret: true },
      { name: 'restaurant_id', label: 'Restaurant GUID' },
    ],
  },
  {
    posType: 'clover',
    label: 'Clover',
    fields: [
      { name: 'merchant_id', label: 'Merchant ID' },
      { name: 'access_token', label: 'Access token', secret: true },
      { name: 'region', label: 'Region (na, eu or la)', optional: true },
    ],
  },
  {
    posType: 'lightspeed',
    label: 'Lightspeed (K-Series)',
    fields: [
      { name: 'client_id', label: 'Client ID' },
      { name: 'client_secret', label: 'Client secret', secret: true },
      { name: 'refresh_token', label: 'Refresh token', secret: true },
      { name: 'business_location_id', label: 'Business location ID' },
    ],
  },
  {
    posType: 'simphony',
    label: 'Oracle Simphony',
    fields: [
      { name: 'auth_server_url', label: 'Authentication server URL' },
      { name: 'app_server_url', label: 'Application server URL' },
      { name: 'client_id', label: 'Client ID' },
      { name: 'username', label: 'Username' },
      { name: 'password', label: 'Password', secret: true },
      { name: 'org_short_name', label: 'Organization short name' },
      { name: 'loc_ref', label: 'Location reference' },
    ],
  },
  {
    posType: 'spoton',
    label: 'SpotOn',
    fields: [
      { name: 'api_key', label: 'API key', secret: true },
      { name: 'location_id', label: 'Location ID' },
    ],
  },
  {
    posType: 'revel',
    label: 'Revel',
    fields: [
      { name: 'subdomain', label: 'Subdomain' },
      { name: 'api_key', label: 'API key', secret: true },
      { name: 'api_secret', label: 'API secret', secret: true },
      { name: 'establishment_id', label: 'Establishment ID', optional: true },
    ],
  },
]

type Frequency = NonNullable<NewPosConnection['sync_frequency']>

/**
 * Connects a POS: the vendor, a name, where its sales are recorded, how often it syncs, and the vendor's
 * credentials. The call asks for the first sync at once (api.connectPos), so the new connection's runs
 * show it working.
 */
export function ConnectPos({ onConnected }: { onConnected: (connectionId: string) => void }) {
  const [posType, setPosType] = useState(POS_TYPES[0]!.posType)
  const [name, setName] = useState('')
  const [location, setLocation] = useState('')
  const [frequency, setFrequency] = useState<Frequency>('hourly')
  const [credentials, setCredentials] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(undefined)
  const [sending, setSending] = useState(false)
  const vendor = POS_TYPES.find((candidate) => candidate.posType === posType) ?? POS_TYPES[0]!
  const badField = error instanceof ApiError ? error.parameter : undefined

  async function connect(event: Event) {
    event.preventDefault()
    setError(undefined)
    setSending(true)
    try {
      const typed = Object.fromEntries(vendor.fields.flatMap((field) => (credentials[field.name]?.trim() ? [[field.name, credentials[field.name]!.trim()]] : [])))
      const connection = await api.connectPos(
        { pos_type: posType, name: name.trim(), credentials: typed, sync_frequency: frequency, ...(location && { location }) },
        newIdempotencyKey(),
      )
      setCredentials({})
      setName('')
      onConnected(connection.id)
    } catch (failure) {
      setError(failure)
    } finally {
      setSending(false)
    }
  }

  return (
    <section aria-labelledby="connect-title">
      <h2 id="connect-title">Connect a POS</h2>
      <form onSubmit={(event) => void connect(event)}>
        <div class="filters">
          <div class="field">
            <label for="connect-pos-type">POS</label>
            <select id="connect-pos-type" value={posType} onChange={(event) => (setPosType(event.currentTarget.value), setCredentials({}))}>
              {POS_TYPES.map((candidate) => (
                <option key={candidate.posType} value={candidate.posType}>
                  {candidate.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="connect-name">Connection name</label>
            <input id="connect-name" value={name} required maxLength={200} onInput={(event) => setName(event.currentTarget.value)} />
          </div>
          <LocationSelect value={location} onChange={setLocation} id="connect-location" />
          <div class="field">
            <label for="connect-frequency">Sync</label>
            <select id="connect-frequency" value={frequency} onChange={(event) => setFrequency(event.currentTarget.value as Frequency)}>
              <option value="hourly">Hourly</option>
              <option value="daily">Daily</option>
              <option value="realtime">Every minute (realtime)</option>
            </select>
          </div>
        </div>
        <div class="filters">
          {vendor.fields.map((field) => {
            const id = `connect-credential-${field.name}`
            const invalid = badField === `credentials.${field.name}`
            const input = {
              id,
              autoComplete: 'off',
              required: !field.optional,
              value: credentials[field.name] ?? '',
              onInput: (event: Event) => setCredentials({ ...credentials, [field.name]: (event.currentTarget as HTMLInputElement).value }),
              'aria-invalid': invalid ? true : undefined,
              'aria-describedby': invalid ? 'connect-error' : undefined,
            }
            return (
              <div class="field" key={`${posType}-${field.name}`}>
                <label for={id}>
                  {field.label}
                  {field.optional && ' (optional)'}
                </label>
                {field.secret ? <input type="password" {...input} /> : <input {...input} />}
              </div>
            )
          })}
        </div>
        <p class="help">The first sync starts as soon as the POS is connected: the last 30 days of sales and the menu.</p>
        <button type="submit" class="primary" disabled={sending}>
          Connect and sync
        </button>
      </form>
      <div id="connect-error">
        <ErrorNote error={error} />
      </div>
    </section>
  )
}
