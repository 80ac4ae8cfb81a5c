import type { Wait } from '../../platform/background.js'
import type { PosOAuthApp } from '../../platform/config.js'
import type { Dispatcher } from 'undici'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TObject } from 'typebox'

/**
 * The contract between barstock's POS core and the seven vendor folders (src/pos/vendors/<vendor>/).
 * Each vendor folder has the same files: <vendor>.client.ts (HTTP only), <vendor>.mapper.ts (vendor
 * shapes to these types), <vendor>.adapter.ts, <vendor>.simulator.ts, and index.ts exporting a PosVendor.
 * Nothing outside src/pos imports a vendor folder.
 */

export const POS_TYPES = ['toast', 'square', 'clover', 'lightspeed', 'simphony', 'spoton', 'revel'] as const
export type PosType = (typeof POS_TYPES)[number]

/** Credentials as our API takes them on create (snake_case, strings); shapes in pos-vendors.md. */
export type PosCredentials = Record<string, string>

/** An item on the POS menu, normalised. Money is a decimal string in the currency's major unit ("7.50"). */
export interface PosProduct {
  posItemId: string
  name: string
  category: string | null
  sku: string | null
  price: string | null
}

/**
 * One sold line, normalised. `lineId` is unique within the connection and stable across syncs
 * (re-syncing never double counts). Lines voided before their check closed never appear.
 *
 * Two kinds of line carry a link:
 * - A modifier that uses stock (an added shot, a double, a premium upgrade, a mixer) is a line of its own
 *   POS item (mappable and depleting like any other) with `parentLineId` naming the line it modifies.
 * - A correction (a refund or return, a void after the check closed) is a line with `correctsLineId`
 *   naming the sold line it takes back, a NEGATIVE quantity (the units taken back), the amount refunded
 *   per unit as unitPrice, and `soldAt` = when the correction happened. barstock dates its stock effect
 *   to the original sale and applies it once (its own `lineId`, e.g. the refund's id + the line's). A
 *   correction for a line never stored waits until that line arrives. An adapter that sees a line
 *   already corrected may report both the line and its correction: the net is right either way.
 */
export interface PosSaleLine {
  lineId: string
  posItemId: string
  name: string
  /** Decimal string: units sold ("2", "0.5" for items sold by measure). */
  quantity: string
  /** Decimal string, per unit, major currency unit. */
  unitPrice: string
  soldAt: Date
  checkId: string | null
  staffId: string | null
  staffName: string | null
  /** Tip on the line's check share, decimal string, where the vendor reports tips. */
  tip: string | null
  /** A modifier's parent line (its lineId); absent or null for a line of its own. */
  parentLineId?: string | null
  /** A correction's original line (its lineId); absent or null for a sale. */
  correctsLineId?: string | null
}

export interface PosStaffMember {
  staffId: string
  name: string
  role: string | null
}

/** A half-open time range [start, end). */
export interface SalesWindow {
  start: Date
  end: Date
}

/**
 * Where a sales listing got to, for a run that fails part way to be taken up by the next one. The
 * position is the adapter's own text (opaque to the core), meaningful only for the same window.
 */
export interface SalesListingProgress {
  /** A position this adapter reported for the same window: the listing starts there. */
  from?: string
  /**
   * Called once the caller has taken a page (the generator was asked for the next one), with the
   * position that resumes the listing after it. An adapter calls it only where every line of the
   * pages before has been handed over (none held back for a later page), and only if a listing from
   * that position misses nothing the pages not yet read would have brought.
   */
  reached: (position: string) => void
}

export type PosErrorKind =
  /** The vendor rejected the credentials (401/403 on auth). */
  | 'invalid_credentials'
  /** Unreachable, timed out, dropped mid-response, or answered 5xx. */
  | 'connection_failed'
  /** 429 after the adapter's own bounded retries; retryAfterSeconds says when to try again. */
  | 'rate_limited'
  /** The vendor answered something we cannot read (garbage, a shape we do not know). */
  | 'invalid_response'

export class PosAdapterError extends Error {
  constructor(
    readonly kind: PosErrorKind,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
    this.name = 'PosAdapterError'
  }
}

export interface PosAdapterOptions {
  credentials: PosCredentials
  /** The vendor's API root: its production host, or a simulator's http://127.0.0.1:PORT. */
  baseUrl: string
  /** Called when the vendor rotated a single-use refresh token; the core stores the new credentials. */
  onCredentialsRotated?: (credentials: PosCredentials) => void | Promise<void>
  /** This deployment's OAuth application at the vendor (Config.posOAuthApps), for a vendor that renews OAuth tokens. */
  oauthApp?: PosOAuthApp | undefined
  /** Per-request timeout, ms (default 10 000). */
  timeoutMs?: number
  /** Longest a 429 Retry-After is waited out inside a run before giving up with rate_limited (default 5 s). */
  maxRetryWaitMs?: number
  /** Aborts requests and Retry-After waits at once (a sync run stopped by a shutdown). */
  signal?: AbortSignal
  /** A sync run's time budget: a Retry-After whose wait would end past it is not waited out. */
  runBudget?: RunBudget
  /** How a Retry-After or a retry's back-off is waited out (a timer when absent; tests answer at once). */
  wait?: Wait
  /**
   * Connects the vendor's requests (undici's default when absent). The gateway gives production hosts one
   * whose DNS look-up refuses non-public addresses at connect, so a host that passed the check when the
   * connection was made cannot be re-pointed at a private address later (DNS rebinding).
   */
  dispatcher?: Dispatcher
}

/**
 * How long a sync run may go on, throttling included (BARSTOCK_POS_RUN_BUDGET_SECONDS). A 429 whose
 * Retry-After would end past `endsAt` fails at once with rate_limited instead of waiting: the run stops
 * as partial and the next one resumes where it stopped, rather than backing off without bound.
 */
export interface RunBudget {
  /** When the run must be over, ms on `now`'s clock. */
  endsAt: number
  /** The budget as configured, for the message. */
  seconds: number
  /** The run's clock, ms (the worker's; tests move it). */
  now: () => number
}

/** How a vendor client sends: what every client passes on to VendorHttp unchanged. */
export type VendorTransport = Pick<PosAdapterOptions, 'timeoutMs' | 'maxRetryWaitMs' | 'signal' | 'dispatcher' | 'runBudget' | 'wait'>

export interface PosAdapter {
  /** Authenticates (reusing a cached token when valid). Throws PosAdapterError. */
  verify(): Promise<void>
  listProducts(): Promise<PosProduct[]>
  /**
   * Sales closed in the window, and corrections made in it (refunds, returns, voids after close), page by
   * page. With `progress`, an adapter that can resume reports where it got to after each page and, given
   * a position it reported before for the same window, starts there instead of at the first page.
   */
  listSales(window: SalesWindow, progress?: SalesListingProgress): AsyncIterable<PosSaleLine[]>
  listStaff(): Promise<PosStaffMember[]>
}

/** A vendor push (webhook) after its signature was verified. */
export interface PosPush {
  kind: 'orders_changed' | 'catalog_changed' | 'other'
  /**
   * A set-up handshake instead of a change: the one-time code the vendor posts (unsigned) when its
   * webhook URL is registered, which the operator must enter in the vendor's dashboard (Clover).
   */
  verificationCode?: string
  /** The vendor accounts (Clover merchants) the push is about, where one app-level URL serves them all. */
  accountIds?: string[]
}

/**
 * A vendor that posts every account's pushes to one URL per app (Clover): barstock serves that URL and
 * routes each push to the connections of the accounts it names.
 */
export interface AppPushRouting {
  /** The credentials field naming the account in the vendor's pushes (Clover: merchant_id). */
  accountField: string
  /**
   * Reads a push without verifying it: the accounts it names (each connection found then verifies it
   * with its own push secret), or the vendor's unsigned set-up request. Throws on a body it cannot read.
   */
  read(rawBody: Buffer): { accountIds: string[]; verificationCode?: string }
}

export interface SimulatorOptions {
  /** Same seed, same menu, staff and sales. */
  seed: number
  /** Sales exist from this many days before `now` (default 120). */
  historyDays?: number
  now?: () => Date
  /** Scales the checks the bar closes a day (default 1, about 344 sale lines a day); benchmarks raise it. */
  volume?: number
  /** Failure switches, for tests and demos. */
  failure?: SimulatorFailure
}

export type SimulatorFailure =
  | { mode: 'rate_limit'; retryAfterSeconds?: number; times?: number }
  | { mode: 'server_error'; times?: number }
  /** Answers the first data requests with these statuses in order (a 429 with Retry-After: 1), then as usual. */
  | { mode: 'statuses'; statuses: (429 | 503)[] }
  | { mode: 'slow'; delayMs: number }
  | { mode: 'garbage' }
  /** Closes the socket in the middle of the Nth data answer (1-based), and of the ones after it: `times` in all, or every one. */
  | { mode: 'drop_mid_page'; page?: number; times?: number }

/** A simulator is a plain node request handler speaking the vendor's API subset. */
export type SimulatorHandler = (req: IncomingMessage, res: ServerResponse) => void

/** A push request's headers as Node gives them. */
export type PushHeaders = Record<string, string | string[] | undefined>

export interface PosVendor {
  posType: PosType
  /**
   * TypeBox schema of the credentials object (additionalProperties false). A field with a `pattern`
   * carries its rule in words as `x-pattern-rule` ("must be digits only (e.g. 1)") for the error.
   */
  credentialsSchema: TObject
  /** Credentials of the right shape, accepted by the simulator (docs and tests). */
  exampleCredentials: PosCredentials
  /** The secret-like credential field: the simulator rejects a value starting with `invalid`. */
  secretField: string
  /**
   * How far before the cursor an incremental run reads again (ms), for a vendor that dates corrections
   * back to the original sale (Lightspeed's back-office cancellations): a window already read then
   * brings them. Default: the core's overlap of 10 minutes. Lines seen before are skipped.
   */
  incrementalRereadMs?: number
  /** The vendor's production API root for these credentials (some hosts depend on region or tenant). */
  productionBaseUrl(credentials: PosCredentials): string
  createAdapter(options: PosAdapterOptions): PosAdapter
  createSimulator(options: SimulatorOptions): SimulatorHandler
  /** Verifies and reads a vendor push; undefined for vendors without pushes. Throws on a bad signature. */
  parsePush?(headers: PushHeaders, rawBody: Buffer, secret: string, url: string): PosPush
  /** For a vendor with one push URL per app: how a push names its accounts. */
  appPush?: AppPushRouting
}
