import { createHash, randomBytes } from 'node:crypto'
import { type Static, type TSchema, Type } from 'typebox'
import { Nullable } from '../../../platform/http/schemas.js'
import Value from 'typebox/value'
import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp, type VendorResponse, transportOf } from '../vendor-http.js'

/**
 * Oracle MICROS Simphony's Business Intelligence API, the subset barstock reads. Sign-in is OpenID
 * Connect with PKCE in three calls to the auth server (authorize, keeping its cookies; sign in with the
 * user's password; trade the code for tokens); the `id_token` is then the bearer token of every BI call,
 * each a POST of a JSON body to /bi/v1/{org}/{operation}. Money and quantities are JSON numbers,
 * timestamps UTC without a zone ("2026-11-18T23:15:00").
 */

export const SIMPHONY_VENDOR = 'Simphony'
export const OIDC_PATH = '/oidc-provider/v1/oauth2'
/** The redirect URI Oracle documents for API accounts; the code is read from it, never followed. */
export const SIMPHONY_REDIRECT_URI = 'apiaccount://callback'

export interface SimphonyTokens {
  id_token: string
  refresh_token?: string
  token_type?: string
  /** Seconds. */
  expires_in: number
}

export interface SimphonySignInAnswer {
  success: boolean
  redirectUrl?: string
}

/*
 * The BI answers as far as barstock reads them (Oracle's reference and its condiment examples; see
 * docs/pos-vendors.md for what is confirmed and what is assumed). Other fields are allowed and ignored.
 */

export const LatestBusinessDateAnswer = Type.Object({ curUTC: Type.String(), latestBusDt: Type.String(), locRef: Type.String() })

export const MenuItemDimensionsAnswer = Type.Object({
  menuItems: Type.Array(Type.Object({ num: Type.Integer(), name: Type.String(), majGrpName: Type.Optional(Nullable(Type.String())) })),
})
export type SimphonyMenuItemDimension = Static<typeof MenuItemDimensionsAnswer>['menuItems'][number]

export const MenuItemPricesAnswer = Type.Object({
  menuItemPrices: Type.Array(Type.Object({ num: Type.Integer(), prcLvlNum: Type.Integer(), price: Type.Number() })),
})
export type SimphonyMenuItemPrice = Static<typeof MenuItemPricesAnswer>['menuItemPrices'][number]

export const EmployeeDimensionsAnswer = Type.Object({
  employees: Type.Array(Type.Object({ num: Type.Integer(), fName: Nullable(Type.String()), lName: Nullable(Type.String()) })),
})
export type SimphonyEmployeeDimension = Static<typeof EmployeeDimensionsAnswer>['employees'][number]

/** A detail line: a menu item (condiments too, linked to their parent by parDtlId), a tender, a discount… */
const DetailLine = Type.Object({
  dtlId: Type.Integer(),
  parDtlId: Type.Optional(Nullable(Type.Integer())),
  detailUTC: Type.String(),
  aggQty: Type.Number(),
  // Oracle's condiment examples show a default condiment with a null total: no charge.
  aggTtl: Nullable(Type.Number()),
  menuItem: Type.Optional(Nullable(Type.Object({ miNum: Type.Integer() }))),
})
export type SimphonyDetailLine = Static<typeof DetailLine>

const GuestCheck = Type.Object({
  guestCheckId: Type.Integer(),
  clsdFlag: Type.Boolean(),
  clsdUTC: Nullable(Type.String()),
  reopnClsdChkClsdUTC: Type.Optional(Nullable(Type.String())),
  empNum: Type.Optional(Nullable(Type.Integer())),
  tipTotal: Type.Optional(Nullable(Type.Number())),
  detailLines: Type.Array(DetailLine),
})
export type SimphonyGuestCheck = Static<typeof GuestCheck>

export const GuestChecksAnswer = Type.Object({ guestChecks: Type.Array(GuestCheck) })

/** Simphony's error body: a numeric code and a message. */
export interface SimphonyError {
  errorCode: number
  message: string
}

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface SimphonyClientOptions extends VendorTransport {
  authBaseUrl: string
  appBaseUrl: string
  clientId: string
  username: string
  password: string
  orgShortName: string
  locRef: string
}

/** PKCE S256: the challenge is the base64url SHA-256 of the verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

/** UTC without a zone or milliseconds, as Simphony writes it ("2026-11-18T23:15:00"). */
export function simphonyUtc(date: Date): string {
  return date.toISOString().slice(0, 19)
}

/** "2026-11-18T23:15:00" (UTC without a zone, as Simphony writes it) or a full ISO time, as a Date. */
export function parseSimphonyUtc(value: string | null | undefined): Date | undefined {
  if (!value) return undefined
  const date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** The message of a BI error body, or of an OAuth one (`error_description`) from the auth server. */
function messageOf(body: unknown): string {
  const error = body as (Partial<SimphonyError> & { error_description?: string }) | undefined
  if (error?.message) return `${error.message}${error.errorCode ? ` (${error.errorCode})` : ''}`
  return error?.error_description ?? 'no error message'
}

export class SimphonyClient {
  private readonly auth: VendorHttp
  private readonly app: VendorHttp

  constructor(private readonly options: SimphonyClientOptions) {
    const http = { vendor: SIMPHONY_VENDOR, ...transportOf(options) }
    this.auth = new VendorHttp({ ...http, baseUrl: options.authBaseUrl })
    this.app = new VendorHttp({ ...http, baseUrl: options.appBaseUrl })
  }

  /** The three-step PKCE sign-in with the user's password; invalid_credentials when refused. */
  async signIn(): Promise<SimphonyTokens> {
    const verifier = randomBytes(32).toString('base64url')
    const authorize = await this.auth.send({
      path: `${OIDC_PATH}/authorize`,
      query: {
        response_type: 'code',
        client_id: this.options.clientId,
        scope: 'openid',
        redirect_uri: SIMPHONY_REDIRECT_URI,
        code_challenge: pkceChallenge(verifier),
        code_challenge_method: 'S256',
      },
    })
    if (authorize.status >= 400) rejectStatus(SIMPHONY_VENDOR, authorize.status, messageOf(authorize.body))
    const signIn = await this.auth.send<SimphonySignInAnswer>({
      method: 'POST',
      path: `${OIDC_PATH}/signin`,
      headers: { cookie: cookiesOf(authorize) },
      form: { username: this.options.username, password: this.options.password, orgname: this.options.orgShortName },
    })
    if (signIn.status !== 200) rejectStatus(SIMPHONY_VENDOR, signIn.status, messageOf(signIn.body))
    const code = codeOf(signIn.body)
    return this.requestTokens({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: this.options.clientId,
      redirect_uri: SIMPHONY_REDIRECT_URI,
    })
  }

  /** New tokens for a refresh token; undefined when the auth server refuses it (spent or expired). */
  async refresh(refreshToken: string): Promise<SimphonyTokens | undefined> {
    try {
      return await this.requestTokens({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.options.clientId })
    } catch (error) {
      if (error instanceof PosAdapterError && error.kind === 'invalid_credentials') return undefined
      throw error
    }
  }

  /**
   * One BI operation for the connection's location, its answer checked against `answer`; a 401 (token
   * expired or revoked) is invalid_credentials, an answer of another shape invalid_response naming the field.
   */
  async call<T extends TSchema>(operation: string, body: Record<string, string>, answer: T, idToken: string): Promise<Static<T>> {
    const response = await this.app.send<unknown>({
      method: 'POST',
      // Every BI operation reads (getGuestChecks, the dimensions): asked again after a dropped connection.
      read: true,
      path: `/bi/v1/${encodeURIComponent(this.options.orgShortName)}/${operation}`,
      headers: { authorization: `Bearer ${idToken}` },
      json: { locRef: this.options.locRef, ...body },
    })
    if (response.status !== 200) rejectStatus(SIMPHONY_VENDOR, response.status, messageOf(response.body))
    if (!Value.Check(answer, response.body)) {
      throw new PosAdapterError('invalid_response', `${SIMPHONY_VENDOR} ${operation} answered ${shapeProblem(answer, response.body)}`)
    }
    return response.body
  }

  private async requestTokens(form: Record<string, string>): Promise<SimphonyTokens> {
    const response = await this.auth.send<SimphonyTokens>({ method: 'POST', path: `${OIDC_PATH}/token`, form })
    // OAuth answers a refused grant with 400 invalid_grant: for us the credentials were refused.
    if (response.status === 400 || response.status === 401) rejectStatus(SIMPHONY_VENDOR, 401, messageOf(response.body))
    if (response.status !== 200) rejectStatus(SIMPHONY_VENDOR, response.status, messageOf(response.body))
    const tokens = response.body
    if (typeof tokens?.id_token !== 'string' || typeof tokens.expires_in !== 'number') {
      throw new PosAdapterError('invalid_response', `${SIMPHONY_VENDOR} token answer has no id_token or expires_in`)
    }
    return tokens
  }
}

/** Where an answer leaves its documented shape: "guestChecks/0/detailLines/2 must have required properties aggQty". */
function shapeProblem(schema: TSchema, body: unknown): string {
  const [error] = Value.Errors(schema, body)
  return error ? `${error.instancePath.slice(1) || 'its body'} ${error.message}` : 'an unreadable body'
}

/** The cookies the authorize step set, as a Cookie header for the sign-in step. */
function cookiesOf(response: VendorResponse): string {
  const header = response.headers['set-cookie']
  const cookies = Array.isArray(header) ? header : header ? [header] : []
  return cookies.map((cookie) => cookie.split(';')[0]).join('; ')
}

function codeOf(answer: SimphonySignInAnswer | undefined): string {
  const redirectUrl = answer?.redirectUrl
  const code = redirectUrl ? new URL(redirectUrl).searchParams.get('code') : null
  // A refused sign-in may come back as 200 with success false and no code.
  if (!code) throw new PosAdapterError('invalid_credentials', `${SIMPHONY_VENDOR} refused the sign-in`)
  return code
}
