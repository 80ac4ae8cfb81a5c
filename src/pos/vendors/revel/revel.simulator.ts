import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler } from '../adapter.js'
import { BoundedCache } from '../../simulation/bounded-cache.js'
import { FailureSwitch, sendJson } from '../../simulation/simulator-server.js'
import { REVEL_RESOURCES, type RevelError, type RevelList, type RevelResource } from './revel.resources.js'
import { RevelSimulatedAccount, type RevelSimulatorOptions } from './revel.simulated-account.js'
import { readListQuery, type ListQuery } from './revel.simulated-queries.js'

/**
 * The Revel resources the adapter reads (GET lists only), serving a simulated account: the key and
 * secret in the `API-AUTHENTICATION: key:secret` header or as `api_key`/`api_secret` query parameters (a
 * secret starting with `invalid` is refused with 401), Tastypie lists `{meta, objects}` paged by limit
 * (default 20, 0 for all, at most 1000) and offset, and only the query parameters each resource takes
 * (anything else is a 400 with Tastypie's `{error}` body).
 */

const DEFAULT_LIMIT = 20
const MAX_LIMIT = 1000

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body: RevelError = { error: message }
  sendJson(res, status, body, headers)
}

export function createRevelSimulator(options: RevelSimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const account = new PagedAccount(new RevelSimulatedAccount(options), options.now ?? (() => new Date()))
  return (req, res) => {
    handle(req, res, failures, account).catch((error: Error) => sendError(res, 500, error.message))
  }
}

/** Lists last asked for, kept (a few) so that paging through one does not render the bar again for each page. */
const LISTS_KEPT = 4

class PagedAccount {
  private readonly lists = new BoundedCache<string, ReturnType<RevelSimulatedAccount['list']>>(LISTS_KEPT)

  constructor(
    private readonly account: RevelSimulatedAccount,
    private readonly now: () => Date,
  ) {}

  list(resource: RevelResource, query: ListQuery, params: URLSearchParams): ReturnType<RevelSimulatedAccount['list']> {
    const listParams = [...params].filter(([name]) => name !== 'limit' && name !== 'offset')
    const key = `${this.now().getTime()} ${resource} ${new URLSearchParams(listParams).toString()}`
    return this.lists.get(key, () => this.account.list(resource, query))
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, failures: FailureSwitch, account: PagedAccount): Promise<void> {
  if (await failures.intercept(res, (status, message, headers) => sendError(res, status, message, headers))) return
  const url = new URL(req.url ?? '/', 'http://simulator')
  if (!authenticated(req, url.searchParams)) return sendError(res, 401, 'Authentication failed')
  const resource = /^\/(?:resources\/)?([A-Za-z]+)\/$/.exec(url.pathname)?.[1]
  if (req.method !== 'GET' || !resource || !(resource in REVEL_RESOURCES)) return sendError(res, 404, 'Not found')
  const query = readListQuery(resource as RevelResource, url.searchParams)
  if ('refused' in query) return sendError(res, 400, query.refused)
  const objects = account.list(resource as RevelResource, query, url.searchParams)
  if ('refused' in objects) return sendError(res, 400, objects.refused)
  sendJson(res, 200, listPage(url, objects, query))
}

function authenticated(req: IncomingMessage, params: URLSearchParams): boolean {
  const header = req.headers['api-authentication']
  const [key, secret] = header ? String(header).split(':') : [params.get('api_key'), params.get('api_secret')]
  return Boolean(key && secret && !secret.startsWith('invalid'))
}

/** One page of a Tastypie list, its `next` and `previous` as Revel renders them (path and query). */
function listPage(url: URL, objects: Record<string, unknown>[], query: ListQuery): RevelList<Record<string, unknown>> {
  const requested = query.limit ?? DEFAULT_LIMIT
  const limit = requested === 0 ? objects.length : Math.min(requested, MAX_LIMIT)
  const { offset } = query
  const pageAt = (at: number) => {
    const params = new URLSearchParams(url.searchParams)
    params.set('limit', String(limit))
    params.set('offset', String(at))
    return `/resources${url.pathname.replace(/^\/resources/, '')}?${params.toString()}`
  }
  const page = objects.slice(offset, offset + limit)
  return {
    meta: {
      limit,
      offset,
      total_count: objects.length,
      next: offset + limit < objects.length ? pageAt(offset + limit) : null,
      previous: offset > 0 ? pageAt(Math.max(0, offset - limit)) : null,
    },
    objects: query.fields ? page.map((object) => Object.fromEntries(query.fields!.map((field) => [field, object[field]]))) : page,
  }
}
