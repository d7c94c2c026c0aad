/**
 * `Content-Type` and `Accept` of a POST to the MCP endpoint.
 *
 * The body must be JSON (`application/json`, optionally `charset=utf-8`), else 415. The client
 * must accept both `application/json` and `text/event-stream`, because the server decides per
 * request which one it answers with: an `Accept` that rules either out (explicitly, with `q=0`,
 * or by listing neither it nor a wildcard covering it) is refused with 406. A request without
 * `Accept` accepts anything (RFC 9110 §12.5.1).
 *
 * @example
 * ```ts
 * import * as Negotiation from "@snodo/http/Negotiation"
 *
 * Negotiation.isJson("application/json; charset=utf-8") // true
 * Negotiation.acceptsBoth("application/json, text/event-stream") // true
 * Negotiation.acceptsBoth("application/json") // false
 * ```
 *
 * @since 0.1.0
 */

/**
 * Whether a `Content-Type` names JSON in UTF-8.
 *
 * @category guards
 * @since 0.1.0
 */
export const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  // What nearly every client sends: no need to take it apart.
  if (contentType === "application/json") return true
  const [type, ...params] = contentType.split(";")
  if (type!.trim().toLowerCase() !== "application/json") return false
  for (const param of params) {
    const [name, value] = param.split("=")
    if (name?.trim().toLowerCase() === "charset") {
      const charset = value?.trim().replace(/^"|"$/g, "").toLowerCase()
      if (charset !== "utf-8" && charset !== "utf8") return false
    }
  }
  return true
}

interface Range {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

const parseRanges = (accept: string): ReadonlyArray<Range> =>
  accept.split(",").flatMap((part) => {
    const [range, ...params] = part.split(";")
    const [type, subtype] = range!.trim().toLowerCase().split("/")
    if (type === undefined || subtype === undefined || type === "" || subtype === "") return []
    let q = 1
    for (const param of params) {
      const [name, value] = param.split("=")
      if (name?.trim().toLowerCase() === "q") {
        const parsed = Number(value?.trim())
        q = Number.isFinite(parsed) ? parsed : 0
      }
    }
    return [{ type, subtype, q }]
  })

/** The quality given to a media type by its most specific matching range (RFC 9110 §12.5.1). */
const quality = (ranges: ReadonlyArray<Range>, type: string, subtype: string): number => {
  let best: Range | undefined
  let specificity = -1
  for (const range of ranges) {
    const level = range.type === type && range.subtype === subtype
      ? 2
      : range.type === type && range.subtype === "*"
      ? 1
      : range.type === "*" && range.subtype === "*"
      ? 0
      : -1
    if (level > specificity) {
      specificity = level
      best = range
    }
  }
  return best?.q ?? 0
}

const cache = new Map<string, boolean>()

/**
 * Whether an `Accept` value accepts both `application/json` and `text/event-stream`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const acceptsBoth = (accept: string | undefined): boolean => {
  if (accept === undefined) return true
  const cached = cache.get(accept)
  if (cached !== undefined) return cached
  const ranges = parseRanges(accept)
  const result = quality(ranges, "application", "json") > 0 && quality(ranges, "text", "event-stream") > 0
  // A bounded memo: clients send the same few values over and over.
  if (cache.size < 64) cache.set(accept, result)
  return result
}

/**
 * Whether an `Accept` value accepts `text/event-stream` (a GET for an initialize-era session's
 * stream).
 *
 * @category combinators
 * @since 0.1.0
 */
export const acceptsEventStream = (accept: string | undefined): boolean =>
  accept === undefined || quality(parseRanges(accept), "text", "event-stream") > 0
