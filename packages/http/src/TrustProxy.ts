/**
 * Which reverse proxies are trusted, and the client's view of a request seen through them.
 *
 * Behind nginx, Caddy, HAProxy or a load balancer, the peer of every connection is the proxy: its
 * address, the scheme and `Host` it used upstream. A proxy says what it received in `Forwarded`
 * (RFC 7239) or the de-facto `X-Forwarded-For`/`-Proto`/`-Host`; anyone else can send the same
 * headers, so they are read only from a trusted hop. Off by default: nothing is trusted, the peer's
 * address is the client's and the forwarded headers change nothing.
 *
 * The trust is a list of addresses and CIDR blocks (`"10.0.0.0/8"`, `"::1"`, `"loopback"`,
 * `"private"`) or a hop count (`1`: the peer is the one proxy in front). The forwarded addresses are
 * walked from the nearest hop outwards; the client is the first that is not trusted (with a hop
 * count, the one that many hops out). The scheme and host are those the nearest trusted hop
 * reported (`Forwarded`'s last element's `proto`/`host`, else the last `X-Forwarded-Proto`/`-Host`).
 *
 * @example
 * ```ts
 * import * as TrustProxy from "@snodo/http/TrustProxy"
 *
 * const trust = TrustProxy.make(["127.0.0.1", "10.0.0.0/8"])
 * const view = TrustProxy.clientView(trust, "127.0.0.1", { "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https" })
 * // view.address === "203.0.113.7", view.protocol === "https", view.trusted === true
 * ```
 *
 * @since 0.1.0
 */
import * as Builtins from "./Builtins.ts"

/**
 * What to trust: addresses and CIDR blocks (with the names `"loopback"`, `"private"` for their
 * blocks), or how many hops in front of the server are proxies.
 *
 * @category models
 * @since 0.1.0
 */
export type TrustProxySpec = number | ReadonlyArray<string>

/**
 * A compiled {@link TrustProxySpec}.
 *
 * @category models
 * @since 0.1.0
 */
export interface TrustProxy {
  /** Whether the hop at `address`, `depth` hops from the server (0: the peer), is a trusted proxy. */
  readonly trusts: (address: string, depth: number) => boolean
}

/**
 * The client's view of a request: its address, and the scheme and host it addressed, as the
 * trusted proxies report them (or as the server sees them when the peer is not trusted).
 *
 * @category models
 * @since 0.1.0
 */
export interface ClientView {
  /** The client's address (the peer's, when it is not a trusted proxy). */
  readonly address: string
  /** `"https"` or `"http"` as the client used it, when a trusted hop said so. */
  readonly protocol: string | undefined
  /** The host the client addressed, when a trusted hop said so. */
  readonly host: string | undefined
  /** Whether the peer is a trusted proxy (the forwarded headers were read). */
  readonly trusted: boolean
}

const named: Readonly<Record<string, ReadonlyArray<string>>> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
  linklocal: ["169.254.0.0/16", "fe80::/10"]
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`. */
const plain = (address: string): string => {
  const lower = address.toLowerCase()
  return lower.startsWith("::ffff:") && Builtins.net().isIPv4(lower.slice(7)) ? lower.slice(7) : lower
}

/**
 * Compiles a spec; an entry that is not an address, a CIDR block or a known name is an error.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (spec: TrustProxySpec): TrustProxy => {
  if (typeof spec === "number") {
    if (!Number.isInteger(spec) || spec < 0) throw new RangeError(`trustProxy: a hop count must be a whole number ≥ 0, got ${spec}`)
    return { trusts: (_address, depth) => depth < spec }
  }
  const Net = Builtins.net()
  const blocks = new Net.BlockList()
  for (const entry of spec.flatMap((item) => named[item.toLowerCase()] ?? [item])) {
    const [address = "", bits] = entry.split("/")
    const family = Net.isIPv4(address) ? "ipv4" : Net.isIPv6(address) ? "ipv6" : undefined
    const prefix = bits === undefined ? undefined : Number(bits)
    if (family === undefined || (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === "ipv4" ? 32 : 128)))) {
      throw new RangeError(`trustProxy: "${entry}" is not an address, a CIDR block, "loopback", "private" or "linklocal"`)
    }
    if (prefix === undefined) blocks.addAddress(address, family)
    else blocks.addSubnet(address, prefix, family)
  }
  return {
    trusts: (address) => {
      const value = plain(address)
      const family = Net.isIPv4(value) ? "ipv4" : Net.isIPv6(value) ? "ipv6" : undefined
      return family !== undefined && blocks.check(value, family)
    }
  }
}

/**
 * Parses a spec from the command line: a hop count (`1`) or a comma-separated list (`loopback,10.0.0.0/8`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const parse = (text: string): TrustProxySpec =>
  /^\d+$/.test(text.trim()) ? Number(text.trim()) : text.split(",").map((item) => item.trim()).filter((item) => item !== "")

type Headers = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const list = (value: string | ReadonlyArray<string> | undefined): Array<string> =>
  value === undefined ? [] : (typeof value === "string" ? value : value.join(",")).split(",").map((item) => item.trim())

const unquote = (value: string): string =>
  value.length >= 2 && value.startsWith("\"") && value.endsWith("\"") ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value

/** One `Forwarded` element's `for`, `proto` and `host` (RFC 7239 §4). */
interface Element {
  readonly for: string | undefined
  readonly proto: string | undefined
  readonly host: string | undefined
}

/**
 * The elements of a `Forwarded` header, nearest hop last. Quoted commas and semicolons are kept
 * inside their values.
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseForwarded = (value: string): ReadonlyArray<Element> => {
  const elements: Array<Element> = []
  for (const element of value.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const pairs: Record<string, string> = {}
    for (const pair of element.match(/(?:[^;"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
      const equals = pair.indexOf("=")
      if (equals > 0) pairs[pair.slice(0, equals).trim().toLowerCase()] = unquote(pair.slice(equals + 1).trim())
    }
    elements.push({ for: pairs["for"], proto: pairs["proto"], host: pairs["host"] })
  }
  return elements
}

/** The address of a `for=` node or an `X-Forwarded-For` entry: `[::1]:80` → `::1`, `1.2.3.4:80` → `1.2.3.4`. */
const nodeAddress = (node: string): string => {
  if (node.startsWith("[")) return node.slice(1, Math.max(1, node.indexOf("]")))
  const colon = node.indexOf(":")
  return colon > 0 && colon === node.lastIndexOf(":") ? node.slice(0, colon) : node
}

const untrusted = (peer: string): ClientView => ({ address: plain(peer), protocol: undefined, host: undefined, trusted: false })

/**
 * The client's view of a request from `peer` (the connection's remote address) with `headers`.
 * Nothing from the headers is used unless `peer` is trusted.
 *
 * @category combinators
 * @since 0.1.0
 */
export const clientView = (trust: TrustProxy | undefined, peer: string, headers: Headers): ClientView => {
  if (trust === undefined || !trust.trusts(plain(peer), 0)) return untrusted(peer)
  const forwarded = headers["forwarded"]
  const elements = forwarded === undefined ? undefined : parseForwarded(typeof forwarded === "string" ? forwarded : forwarded.join(","))
  const chain = elements !== undefined
    ? elements.map((element) => element.for === undefined ? "" : nodeAddress(element.for))
    : list(headers["x-forwarded-for"]).map(nodeAddress)
  let address = plain(peer)
  for (let depth = 1; chain.length > 0; depth++) {
    const next = plain(chain.pop()!)
    address = next
    if (next === "" || !trust.trusts(next, depth)) break
  }
  const nearest = elements?.at(-1)
  const protocol = (nearest?.proto ?? list(headers["x-forwarded-proto"]).at(-1))?.toLowerCase()
  const host = nearest?.host ?? list(headers["x-forwarded-host"]).at(-1)
  return {
    address: address === "" ? plain(peer) : address,
    protocol: protocol === "http" || protocol === "https" ? protocol : undefined,
    host: host === undefined || host === "" ? undefined : host,
    trusted: true
  }
}
