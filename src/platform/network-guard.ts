import { BlockList, isIP, type LookupFunction } from 'node:net'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { invalidParameter } from './errors.js'

/**
 * The SSRF rule for every URL a tenant can give (webhook URLs, POS hosts in credentials): only public
 * addresses. Loopback, private, link-local, shared (CGNAT), unspecified, multicast, reserved and
 * documentation ranges are refused, in IPv4 and IPv6, including IPv4 addresses carried inside IPv6
 * (mapped, NAT64, 6to4). Webhooks apply it to the URL at create and to the address actually connected to
 * at every delivery; POS connections to the hosts at create and every run (publicHostRefusal), and to
 * the address each vendor request connects to (guardedLookup).
 */
const refused = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6')
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails and `::` expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16))
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

/** The IPv4 address carried by a NAT64, 6to4 or IPv4-translated IPv6 address, if any. */
function embeddedIPv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4From(g6, g7)
  if (g0 === 0x2002) return ipv4From(g1, g2)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return ipv4From(g6, g7)
  return undefined
}

/** True when `address` (an IP literal) is not a public address; anything that is not an IP is refused. */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const family = isIP(bare)
  if (family === 4) return refused.check(bare, 'ipv4')
  if (family !== 6) return true
  // BlockList checks IPv4-mapped addresses (::ffff:a.b.c.d) against the IPv4 ranges itself.
  if (refused.check(bare, 'ipv6')) return true
  const embedded = embeddedIPv4(ipv6Groups(bare))
  return embedded !== undefined && refused.check(embedded, 'ipv4')
}

/** Thrown (and recorded as the attempt's error) when a delivery would reach a refused address. */
export class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOKREFUSED'
  constructor(host: string, address: string) {
    super(`refused to connect to ${host}: ${address} is not a public address (BARSTOCK_WEBHOOK_ALLOW_PRIVATE is off)`)
    this.name = 'RefusedAddressError'
  }
}

/** Resolves a host name to all its addresses. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  })

/** The refused address among `addresses`, if any (one is enough to refuse the host). */
function firstRefused(addresses: LookupAddress[]): string | undefined {
  return addresses.find((entry) => isRefusedAddress(entry.address))?.address
}

/**
 * A `lookup` for net/tls connect: it resolves, checks every address, and hands back only checked ones,
 * so the socket connects to exactly the address that passed (a DNS answer that changes between check
 * and connect cannot slip a private address in).
 */
export function guardedLookup(resolver: Resolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname)
      .then((addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined
        const usable = family ? addresses.filter((entry) => entry.family === family) : addresses
        const bad = allowPrivate ? undefined : firstRefused(usable)
        if (bad) throw new RefusedAddressError(hostname, bad)
        const first = usable[0]
        if (!first) throw Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' })
        if (options.all) callback(null, usable)
        else callback(null, first.address, first.family)
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0))
  }
}

export interface UrlGuard {
  allowPrivate: boolean
  resolver: Resolver
}

/**
 * Checks a webhook URL at create: absolute http(s), no credentials, and (unless private targets are
 * allowed) a host that is or resolves only to public addresses. Throws invalid_parameter.
 */
export async function checkWebhookUrl(raw: string, guard: UrlGuard): Promise<string> {
  const reject = (message: string) => invalidParameter('url', raw, message)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw reject('url must be an absolute http or https URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw reject(`url must use http or https, not ${url.protocol.slice(0, -1)}`)
  if (url.username || url.password) throw reject('url must not carry credentials; authenticate deliveries by their signature')
  if (guard.allowPrivate) return raw
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) {
    if (isRefusedAddress(host)) throw reject(`url points to ${host}, which is not a public address`)
    return raw
  }
  let addresses: LookupAddress[]
  try {
    addresses = await guard.resolver(host)
  } catch {
    throw reject(`url host ${host} does not resolve`)
  }
  const bad = firstRefused(addresses)
  if (bad) throw reject(`url host ${host} resolves to ${bad}, which is not a public address`)
  if (addresses.length === 0) throw reject(`url host ${host} does not resolve`)
  return raw
}

/**
 * Why a URL's host is not a public address (it is one, or resolves to one), or undefined when it is
 * public. A host that does not resolve is left to the caller's own connection error.
 */
export async function publicHostRefusal(raw: string, resolver: Resolver = systemResolver): Promise<string | undefined> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) return isRefusedAddress(host) ? `${host} is not a public address` : undefined
  const addresses = await resolver(host).catch(() => [])
  const bad = firstRefused(addresses)
  return bad ? `${host} resolves to ${bad}, which is not a public address` : undefined
}
