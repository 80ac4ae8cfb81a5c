/**
 * The guides of the API reference: the OpenAPI `info.description` and the tags' descriptions. They speak
 * of every domain, so they live beside the composition root; src/platform/http/openapi.ts renders them.
 */

const AUTHENTICATION = `## Authentication and environments

Every \`/v1\` request carries an API key in the \`X-API-Key\` header (\`Authorization: Bearer\` is not read).
Keys are created by the operator of the service with its command line, on the machine that runs it:

\`\`\`sh
barstock keys create --name "back office" --permissions '*'                       # a production key, bs_live_…
barstock keys create --name "integration tests" --permissions inventory:read --sandbox   # a sandbox key, bs_test_…
\`\`\`

The key is printed once; store it then. \`barstock keys list\` and \`barstock keys revoke <id>\` manage keys;
\`--expires-at\` gives a key an end. Rotate keys every 90 days.

Each key belongs to one account and one **environment**: \`production\` (\`bs_live_\`) or \`sandbox\`
(\`bs_test_\`). The two environments of an account share nothing: items, orders, connections, webhooks and
events made with a sandbox key are seen by sandbox keys only. Sandbox keys are limited to 100 requests a
minute, production keys to 1,000, and sandbox POS connections talk to built-in simulators (see **POS sandbox**).

A key carries permissions: \`inventory:read\`, \`inventory:write\`, \`pos:read\`, \`pos:write\`, \`ordering:read\`,
\`ordering:write\`, \`analytics:read\`, \`webhooks:manage\`. Each operation names the one it needs. A missing,
unknown, revoked or expired key answers 401 \`invalid_api_key\`; a key without the permission answers 403
\`insufficient_permissions\` with \`details.required\` and \`details.provided\`. \`GET /v1/auth/test\` shows a
key's permissions and rate limit.`

const RESPONSES = `## Responses and errors

A success wraps its payload in \`data\`, with \`meta\` (\`request_id\`, \`timestamp\`); lists add \`pagination\`.
Every response carries \`X-Request-Id\`, the same as \`meta.request_id\`: quote it when reporting a problem.

An error answers with its HTTP status and

\`\`\`json
{ "error": { "code": "item_not_found", "message": "Inventory item item_01jd… does not exist", "details": {} },
  "meta": { "request_id": "req_01jd…", "timestamp": "2026-11-22T21:30:00.000Z" } }
\`\`\`

\`code\` is stable (a published code is never renamed): branch on it, show \`message\` to people.
\`invalid_parameter\` (400) carries \`details.parameter\`, the field as a client names it (\`items[2].quantity\`,
\`per_page\`, \`body\`, \`X-Idempotency-Key\`), and \`details.value\`, what was sent. Each operation lists the codes
it can answer with and when. 500 \`internal_error\` hides its cause (the server logs it with the request id);
503 \`database_unavailable\` and 503 \`imports_busy\` (a sales import that waited too long for its turn) come with
\`Retry-After\` and are safe to retry. A trailing slash is ignored on
every path.`

const PAGINATION = `## Pagination

Lists take \`page\` (1 to 1,000,000, default 1) and \`per_page\` (1 to 100, default 50) and answer with
\`pagination\`: \`total\` (items in all pages), \`page\`, \`per_page\`, \`total_pages\`, and \`next_page_url\` /
\`prev_page_url\` (the same path and filters with the page changed; null at either end). A page past the
end is an empty \`data\`. Follow \`next_page_url\` until it is null to read a whole list.`

const IDEMPOTENCY = `## Idempotency

Every POST that needs a key accepts \`X-Idempotency-Key\` (1 to 255 characters, e.g. a UUID you generate
per operation). The first request with a key runs and its answer (success or 4xx error) is stored for
24 hours, per API key; a repeat with the same key and the same method, path and body gets the stored
answer again, with \`Idempotent-Replayed: true\`, and changes nothing. So a POST whose answer was lost
(a timeout, a dropped connection) can be sent again safely.

- The same key with a different request: 400 \`idempotency_key_reused\`.
- The same key while the first request still runs: 409 \`idempotency_in_progress\`; retry after a moment.
- 5xx answers are not stored: the retry runs afresh.

PUT and DELETE set a state, so repeating them is already safe.`

const RATE_LIMITS = `## Rate limits

Requests are counted per API key in fixed one-minute windows: 1,000 a minute for production keys, 100 for
sandbox keys (the operator may change both). Requests without a valid key count against the client's
address at the production limit. Every \`/v1\` response carries:

| Header | Meaning |
|---|---|
| \`X-RateLimit-Limit\` | Requests allowed in the window |
| \`X-RateLimit-Remaining\` | Requests left in the window |
| \`X-RateLimit-Reset\` | When the window resets, in Unix seconds |
| \`X-RateLimit-Reset-After\` | Seconds until it resets |

Past the limit the answer is 429 \`rate_limit_exceeded\` with \`Retry-After\` (seconds). Wait that long, or
back off exponentially.`

const WEBHOOKS = `## Webhooks

A webhook (\`POST /v1/webhooks\`) makes barstock POST a signed JSON message to your URL for each event of
the kinds it subscribes to, from its own account and environment. The body is
\`{"id", "event", "timestamp", "data"}\`; each event's \`data\` is documented under **Webhooks** in this
reference. Headers: \`X-Webhook-Id\` (the event id, the same on every retry: de-duplicate on it),
\`X-Webhook-Event\` (the kind) and \`X-Webhook-Signature\`.

Acknowledge with any 2xx within 5 seconds. Anything else is retried with exponential backoff (30 s,
doubling, at most 6 h apart) for 3 days; a webhook whose attempts all failed for 3 days is disabled.
Deliveries are at least once and not ordered: order by \`timestamp\`. \`POST /v1/webhooks/{id}/test\` sends
a \`ping\`.

### Verifying the signature

\`X-Webhook-Signature: t=<unix seconds>,v1=<hex>\`: \`v1\` is the lowercase hex HMAC-SHA256, keyed with the
webhook's secret, of \`<t>.<body>\`, the body being the exact bytes received. Reject a message whose \`v1\`
differs or whose \`t\` is more than 300 seconds old. Verify the raw body before parsing it.

JavaScript (Node):

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto'

export function verifyBarstockSignature(rawBody, header, secret, toleranceSeconds = 300) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2)))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(\`\${t}.\`).update(rawBody).digest()
  const given = Buffer.from(parts.v1 ?? '', 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
\`\`\`

Python:

\`\`\`python
import hashlib, hmac, time

def verify_barstock_signature(raw_body: bytes, header: str, secret: str, tolerance_seconds: int = 300) -> bool:
    parts = dict(part.split("=", 1) for part in header.split(","))
    t = int(parts.get("t", "0"))
    if abs(time.time() - t) > tolerance_seconds:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", ""))
\`\`\`

curl and openssl (check a delivery by hand; \`body.json\` holds the exact body received):

\`\`\`sh
T=1795250000   # the t= of the header
printf '%s.' "$T" | cat - body.json | openssl dgst -sha256 -hmac "$WEBHOOK_SECRET" -hex | sed 's/^.*= //'
# equal to the v1= of the header: the message is authentic
\`\`\`

The scheme is Stripe's, so Stripe's libraries verify barstock deliveries too.`

const POS_SANDBOX = `## POS sandbox

With a sandbox key, \`POST /v1/pos/connections\` connects to barstock's own simulator of the vendor instead
of the vendor: any credentials of the right shape work, except a secret starting with \`invalid\`, refused
as the vendor would refuse it. Every simulator serves the same simulated bar (a menu of 31 items, six staff,
120 days of sales), so syncs, mappings, auto-mapping and the analytics that follow can be tried end to end
without a vendor account. With a production key the same calls go to the vendor.`

/** The API reference's introduction, in Markdown. */
export const API_GUIDE = [
  'Stock and purchasing for bars: inventory, counts, recipes, POS sales, orders to distributors, variance and forecasts, and webhooks. The reference documents every operation with an example; the sections below say what holds for all of them.',
  AUTHENTICATION,
  RESPONSES,
  PAGINATION,
  IDEMPOTENCY,
  RATE_LIMITS,
  WEBHOOKS,
  POS_SANDBOX,
].join('\n\n')

/** The tags of the reference, in the order a reader meets them. */
export const API_TAGS = [
  { name: 'Authentication', description: 'Check an API key: its permissions and rate limit. Keys are created with `barstock keys create`.' },
  { name: 'Locations', description: 'Places stock is kept (the main bar, a cellar). Every account starts with `main_bar`.' },
  {
    name: 'Inventory',
    description:
      'Items with their stock, physical counts, batch changes and each item’s stock ledger. Quantities are in the item’s unit (bottle, keg, case…), exact to four decimals.',
  },
  { name: 'Recipes', description: 'What one serving of a drink takes from stock; POS items can map to a recipe.' },
  {
    name: 'POS',
    description:
      'Connections to point-of-sale systems (Toast, Square, Clover, Lightspeed, Simphony, SpotOn, Revel), their sync runs, and the mapping of POS items to inventory items or recipes. Sandbox keys talk to built-in simulators.',
  },
  { name: 'Sales', description: 'Import sale lines from a POS export when the POS has no API connection.' },
  { name: 'Distributors', description: 'The suppliers orders go to, with their minimum order, lead time and catalog.' },
  {
    name: 'Orders',
    description:
      'Purchase orders: draft → submitted → processing → shipped → delivered, or cancelled. Receiving adds stock; recommendations suggest what to order from forecast demand.',
  },
  { name: 'Analytics', description: 'Variance (what went missing and why), demand forecasts, recipe costing, performance, staff and category reports.' },
  { name: 'Settings', description: 'The account’s currency, variance threshold and metric targets, per environment.' },
  { name: 'Webhooks', description: 'Subscribe a URL to events; inspect and retry deliveries. The events’ payloads are under Webhooks below.' },
  { name: 'Health', description: 'Liveness and readiness probes for orchestrators; no key.' },
  { name: 'Operations', description: 'Prometheus metrics for the operator, behind BARSTOCK_METRICS_TOKEN.' },
]
