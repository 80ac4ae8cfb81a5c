import Value from 'typebox/value'
import type { TLocalizedValidationError } from 'typebox/error'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import { newId } from '../../platform/ids.js'
import { getLocation } from '../../locations/index.js'
import { type PosCredentials, type PosVendor, PosAdapterError } from '../vendors/adapter.js'
import {
  type ConnectionRow,
  FREQUENCY_SECONDS,
  findConnectionRow,
  insertConnection,
  listConnectionRows,
  lockConnectionRow,
  rowToConnection,
  syncStatsOf,
  updateConnectionRow,
} from './connections.repository.js'
import { posErrors } from '../pos.errors.js'
import type { PosGateway } from './pos-gateway.js'
import type { CreateConnectionBody, CreatedPosConnection, PosConnection, PosConnectionWithStats, UpdateConnectionBody } from './connections.schemas.js'
import { pushAccountKeyOf, pushSecretForNewConnection, requirePushVendor, sealPushSecret } from '../push/push-setup.js'
import { queueSyncRun } from '../sync/sync-queue.js'
import { findVendor, supportedPosTypes } from '../vendors/vendor-registry.js'

const DEFAULT_LOCATION = 'main_bar'

/** The vendor of a pos_type, or 400 pos_not_supported. */
export function vendorOf(posType: string): PosVendor {
  const vendor = findVendor(posType)
  if (!vendor) throw posErrors.posNotSupported([posType, supportedPosTypes().join(', ')], { parameter: 'pos_type', value: posType })
  return vendor
}

/** "a", "a and b", "a, b and c". */
function listInWords(words: string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/** What a credential field's value must be, in words, for the problem TypeBox found with it. */
function credentialRule(field: Record<string, unknown>, problem: TLocalizedValidationError): string {
  const params = problem.params as Record<string, unknown>
  switch (problem.keyword) {
    case 'type':
      return `must be a ${String(params.type)}`
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`
    case 'pattern':
      return typeof field['x-pattern-rule'] === 'string' ? field['x-pattern-rule'] : `must match the pattern ${String(params.pattern)}`
    case 'enum':
      return `must be one of ${(field.enum as unknown[]).join(', ')}`
    default:
      return problem.message
  }
}

/**
 * Credentials of the vendor's shape, or 400 invalid_credentials: every missing and unknown field named
 * at once with the fields the vendor takes, else the first bad value's rule in words. Each field is named
 * once, as `credentials.<field>`; values are never echoed (they are secrets).
 */
function checkCredentialShape(vendor: PosVendor, credentials: Record<string, unknown>): PosCredentials {
  const schema = vendor.credentialsSchema
  const required = new Set(schema.required ?? [])
  const fields = Object.keys(schema.properties)
  const expected = fields.map((field) => (required.has(field) ? field : `${field} (optional)`))
  const missing = [...required].filter((field) => !(field in credentials))
  const unknown = Object.keys(credentials).filter((field) => !fields.includes(field))
  if (missing.length > 0 || unknown.length > 0) {
    const named = (list: string[]) => listInWords(list.map((field) => `credentials.${field}`))
    const problems = [
      ...(missing.length > 0 ? [`${named(missing)} ${missing.length > 1 ? 'are' : 'is'} required`] : []),
      ...(unknown.length > 0 ? [`${named(unknown)} ${unknown.length > 1 ? 'are not' : 'is not a'} ${vendor.posType} credential${unknown.length > 1 ? 's' : ''}`] : []),
    ]
    throw posErrors.invalidCredentials(`${problems.join('; ')}. ${vendor.posType} takes ${expected.join(', ')}`, {
      parameter: `credentials.${missing[0] ?? unknown[0]}`,
      missing,
      unknown,
      expected,
    })
  }
  const [problem] = Value.Errors(schema, credentials)
  if (!problem) return credentials as PosCredentials
  const field = problem.instancePath.split('/')[1] ?? ''
  throw posErrors.invalidCredentials(`${vendor.posType} credentials.${field} ${credentialRule({ ...schema.properties[field] }, problem)}`, {
    parameter: `credentials.${field}`,
    expected,
  })
}

/** Maps an adapter failure while authenticating to the API's codes. */
export function authenticationError(vendor: PosVendor, error: unknown): Error {
  if (!(error instanceof PosAdapterError)) return error as Error
  if (error.kind === 'invalid_credentials') {
    return posErrors.invalidCredentials(`${vendor.posType} rejected the credentials: ${error.message}`)
  }
  return posErrors.connectionFailed([vendor.posType, error.message], { reason: error.kind })
}

export interface VerifiedConnection {
  vendor: PosVendor
  credentials: PosCredentials
}

/**
 * Checks a new connection before anything is stored: a supported pos_type, credentials of the vendor's
 * shape, a push_secret only for a vendor with pushes, and a successful login with the vendor (no
 * transaction is held meanwhile). Throws pos_not_supported, invalid_credentials, push_not_supported,
 * connection_failed.
 */
export async function verifyNewConnection(gateway: PosGateway, tenant: Tenant, input: CreateConnectionBody): Promise<VerifiedConnection> {
  const vendor = vendorOf(input.pos_type)
  if (input.push_secret !== undefined) requirePushVendor(vendor, 'push_secret')
  let credentials = checkCredentialShape(vendor, input.credentials)
  try {
    const adapter = await gateway.adapter(vendor, tenant.environment, credentials, async (rotated) => {
      credentials = rotated
    })
    await adapter.verify()
  } catch (error) {
    throw authenticationError(vendor, error)
  }
  return { vendor, credentials }
}

/**
 * Stores a verified connection, credentials and push secret sealed. The run `initial_sync` asks for is
 * queued in the same transaction, triggered by `triggeredBy`, and named in the answer (first_sync_id,
 * null without one): a client that asks for none starts the first run itself with POST …/sync, which a
 * hidden run would refuse as sync_in_progress. The scheduler's first run is one period later either
 * way. A push secret generated here is in this answer only. Throws location_not_found.
 */
export async function createConnection(
  trx: Trx,
  gateway: PosGateway,
  tenant: Tenant,
  input: CreateConnectionBody,
  verified: VerifiedConnection,
  triggeredBy: string,
): Promise<CreatedPosConnection> {
  const location = input.location ?? DEFAULT_LOCATION
  await getLocation(trx, tenant, location)
  const id = newId('pos')
  const push = pushSecretForNewConnection(verified.vendor, input.push_secret)
  const syncFrequency = input.sync_frequency ?? 'hourly'
  const row = await insertConnection(trx, {
    id,
    account_id: tenant.accountId,
    environment: tenant.environment,
    pos_type: verified.vendor.posType,
    name: input.name,
    location_id: location,
    status: 'active',
    sync_frequency: syncFrequency,
    credentials: gateway.seal(id, verified.credentials),
    push_secret: push ? sealPushSecret(gateway, id, push.secret) : null,
    push_verification_code: null,
    push_account_key: pushAccountKeyOf(gateway, verified.vendor, verified.credentials),
    sales_cursor: null,
    sales_reread_hours: input.sales_reread_hours ?? null,
    last_sync: null,
    next_sync_at: new Date(Date.now() + FREQUENCY_SECONDS[syncFrequency] * 1000),
  })
  const firstSync = input.initial_sync ? await queueSyncRun(trx, tenant, id, input.initial_sync, triggeredBy) : undefined
  return { ...rowToConnection(row), first_sync_id: firstSync?.sync_id ?? null, ...(push?.generated && { push_secret: push.secret }) }
}

/** The live connection row, or 404 connection_not_found. */
export async function getConnectionRow(db: Executor, tenant: Tenant, id: string): Promise<ConnectionRow> {
  const row = await findConnectionRow(db, tenant, id)
  if (!row) throw posErrors.connectionNotFound(id)
  return row
}

/** The live connection row, locked, or 404 connection_not_found. */
export async function lockConnection(trx: Trx, tenant: Tenant, id: string): Promise<ConnectionRow> {
  const row = await lockConnectionRow(trx, tenant, id)
  if (!row) throw posErrors.connectionNotFound(id)
  return row
}

/** A connection with its sync_stats. Throws connection_not_found. */
export async function getConnection(db: Executor, tenant: Tenant, id: string): Promise<PosConnectionWithStats> {
  const row = await getConnectionRow(db, tenant, id)
  return { ...rowToConnection(row), sync_stats: await syncStatsOf(db, id) }
}

export async function listConnections(db: Executor, tenant: Tenant, page: PageRequest) {
  const { rows, total } = await listConnectionRows(db, tenant, page)
  return { connections: rows.map(rowToConnection), total }
}

/**
 * Renames a connection, changes its frequency, location or push secret, or pauses (inactive) and resumes
 * it; a new frequency or a resume reschedules the next run. Throws connection_not_found,
 * location_not_found, push_not_supported.
 */
export async function updateConnection(trx: Trx, gateway: PosGateway, tenant: Tenant, id: string, input: UpdateConnectionBody): Promise<PosConnection> {
  const current = await lockConnection(trx, tenant, id)
  if (input.location !== undefined) await getLocation(trx, tenant, input.location)
  const fields: Partial<ConnectionRow> = { updated_at: new Date() }
  if (input.push_secret !== undefined) {
    requirePushVendor(vendorOf(current.pos_type), 'push_secret')
    fields.push_secret = sealPushSecret(gateway, id, input.push_secret)
  }
  if (input.name !== undefined) fields.name = input.name
  if (input.location !== undefined) fields.location_id = input.location
  if (input.sales_reread_hours !== undefined) fields.sales_reread_hours = input.sales_reread_hours
  if (input.sync_frequency !== undefined && input.sync_frequency !== current.sync_frequency) {
    fields.sync_frequency = input.sync_frequency
    fields.next_sync_at = new Date(Date.now() + FREQUENCY_SECONDS[input.sync_frequency] * 1000)
  }
  if (input.status !== undefined && input.status !== current.status) {
    // Resuming a paused (or failing) connection syncs it at the next scheduler pass.
    if (input.status === 'active') fields.next_sync_at = new Date()
    fields.status = input.status
  }
  return rowToConnection(await updateConnectionRow(trx, id, fields))
}

/** Deletes a connection; its sales stay for analytics, a run in flight fails. Throws connection_not_found. */
export async function deleteConnection(trx: Trx, tenant: Tenant, id: string) {
  await lockConnection(trx, tenant, id)
  await updateConnectionRow(trx, id, { deleted_at: new Date(), updated_at: new Date() })
  return { id, deleted: true as const }
}
