/**
 * Stateless pagination bound to the contents of the list it pages.
 *
 * A cursor names the list's fingerprint and an offset. When the list changes (a tool registered,
 * a different principal's view), the fingerprint changes and old cursors are refused with -32602
 * "Invalid or expired cursor", so a client never mixes pages of two different lists.
 *
 * @example
 * ```ts
 * import * as Pagination from "@snodo/core/extension/Pagination"
 *
 * const list = Pagination.makeList(["a", "b", "c"], 2)
 * const first = Pagination.page(list, undefined) // { items: ["a", "b"], nextCursor: "…" }
 * ```
 *
 * @since 0.1.0
 */
import { InvalidParams } from "@snodo/protocol/jsonrpc/McpError"

/**
 * Default page size.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultPageSize = 100

/**
 * Longest cursor accepted, in characters.
 *
 * @category constants
 * @since 0.1.0
 */
const maxCursorLength = 2048

/**
 * A list ready to page: its items, their fingerprint and the page size.
 *
 * @category models
 * @since 0.1.0
 */
export interface PagedList<A> {
  readonly items: ReadonlyArray<A>
  readonly fingerprint: string
  readonly pageSize: number
}

/**
 * One page.
 *
 * @category models
 * @since 0.1.0
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | undefined
}

/**
 * Fingerprints a list by the JSON of its items.
 *
 * @category combinators
 * @since 0.1.0
 */
const fingerprintOf = (items: ReadonlyArray<unknown>, scope: string = ""): string =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(scope).update("\u0000").update(JSON.stringify(items)).digest("base64url").slice(0, 22)

/**
 * A list ready to page. `scope` (e.g. a principal id) enters the fingerprint, so cursors of one
 * scope are refused in another even when both see the same items.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeList = <A>(items: ReadonlyArray<A>, pageSize: number = defaultPageSize, scope: string = ""): PagedList<A> => {
  // Computed when a cursor is first made or read: the lists of every server are built at its
  // start, and most are never paged (hashing them loaded `node:crypto` at every start).
  let fingerprint: string | undefined
  return {
    items,
    get fingerprint() {
      return fingerprint ??= fingerprintOf(items, scope)
    },
    pageSize
  }
}

const encodeCursor = (fingerprint: string, offset: number): string =>
  Buffer.from(`${fingerprint}:${offset}`, "utf8").toString("base64url")

const expired = () => new InvalidParams({ message: "Invalid or expired cursor" })

const decodeCursor = (list: PagedList<unknown>, cursor: string): number | InvalidParams => {
  if (cursor.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) return expired()
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const separator = text.lastIndexOf(":")
  if (separator < 0 || text.slice(0, separator) !== list.fingerprint) return expired()
  const digits = text.slice(separator + 1)
  if (!/^[1-9][0-9]{0,9}$/.test(digits)) return expired()
  const offset = Number(digits)
  return offset < list.items.length && offset % list.pageSize === 0 ? offset : expired()
}

/**
 * The page a cursor points at (the first page without one).
 *
 * @category combinators
 * @since 0.1.0
 */
export const page = <A>(list: PagedList<A>, cursor: string | undefined): Page<A> | InvalidParams => {
  const offset = cursor === undefined ? 0 : decodeCursor(list, cursor)
  if (typeof offset !== "number") return offset
  const end = offset + list.pageSize
  return {
    items: offset === 0 && end >= list.items.length ? list.items : list.items.slice(offset, end),
    nextCursor: end < list.items.length ? encodeCursor(list.fingerprint, end) : undefined
  }
}
