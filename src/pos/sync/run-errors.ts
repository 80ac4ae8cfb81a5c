import { PosAdapterError } from '../vendors/adapter.js'

/**
 * Why a run failed: the code `pos_sync_runs.error_code` records, `GET /v1/pos/syncs/{id}` answers and
 * pos.sync_failed carries (docs/pos.md). authentication_failed, connection_failed, rate_limited and
 * invalid_response come from the vendor (its adapter's error kind); connection_deleted: the connection was
 * deleted before or during the run; interrupted: a shutdown, a crash or another worker ended it;
 * pos_not_supported: this build has no adapter for the connection's vendor; internal_error: a bug here.
 */
export type SyncRunErrorCode =
  | 'authentication_failed'
  | 'connection_failed'
  | 'rate_limited'
  | 'invalid_response'
  | 'connection_deleted'
  | 'interrupted'
  | 'pos_not_supported'
  | 'internal_error'

/** A failure with the code the run records and pos.sync_failed carries. */
export class SyncFailure extends Error {
  constructor(
    readonly code: SyncRunErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

const ADAPTER_FAILURE_CODES: Record<PosAdapterError['kind'], SyncRunErrorCode> = {
  invalid_credentials: 'authentication_failed',
  connection_failed: 'connection_failed',
  rate_limited: 'rate_limited',
  invalid_response: 'invalid_response',
}

/** What any error that ended a run records: a vendor's error by its kind; anything unforeseen as internal_error. */
export function asSyncFailure(error: unknown): SyncFailure {
  if (error instanceof SyncFailure) return error
  if (error instanceof PosAdapterError) return new SyncFailure(ADAPTER_FAILURE_CODES[error.kind], error.message, error.retryAfterSeconds)
  // Anything else is our bug: the details go to the log, not to the API.
  return new SyncFailure('internal_error', 'The sync failed inside barstock; see the server log')
}
