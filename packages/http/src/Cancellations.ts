/**
 * The requests in flight, by principal and JSON-RPC id, so that a `notifications/cancelled` POST
 * can stop one.
 *
 * On Streamable HTTP, closing the response is the cancellation signal; a client may still post
 * `notifications/cancelled`, and it is honoured for requests of the same authenticated principal
 * only (ids are chosen by clients and collide across them). Requests of the anonymous principal
 * are never registered: every unauthenticated caller is that one principal, so nothing ties a
 * posted cancel to the caller that sent the request (any client could stop any other's calls by
 * guessing `1`); they cancel by closing the response. Several in-flight requests of one principal
 * may share a key: a cancel reaches all of them. An unknown or finished id is ignored.
 *
 * @example
 * ```ts
 * import * as Cancellations from "@snodo/http/Cancellations"
 *
 * const registry = Cancellations.make()
 * const release = registry.register("alice", 7, exchange)
 * registry.cancel("alice", 7) // exchange.cancel() was called
 * release()
 * ```
 *
 * @since 0.1.0
 */
import * as Encoder from "@snodo/core/transport/Encoder"
import type { RequestId } from "@snodo/core/transport/Envelope"

/** What can be cancelled. @since 0.1.0 */
export interface Cancellable {
  readonly cancel: () => void
}

/** @since 0.1.0 */
export interface Registry {
  /** Registers an in-flight request; the returned function unregisters it. */
  readonly register: (principal: string, id: RequestId, request: Cancellable) => () => void
  /** Cancels every in-flight request of this principal with this id; returns how many. */
  readonly cancel: (principal: string, id: unknown) => number
  readonly size: () => number
}

const keyOf = (principal: string, id: RequestId): string => `${principal}\u0000${Encoder.idKey(id)}`

const asId = (u: unknown): RequestId | undefined =>
  typeof u === "string" || (typeof u === "number" && Number.isSafeInteger(u)) ? u : undefined

/**
 * A new, empty registry.
 *
 * @since 0.1.0
 */
export const make = (): Registry => {
  const entries = new Map<string, Cancellable | Set<Cancellable>>()
  let count = 0
  return {
    register: (principal, id, request) => {
      const key = keyOf(principal, id)
      const existing = entries.get(key)
      if (existing === undefined) entries.set(key, request)
      else if (existing instanceof Set) existing.add(request)
      else entries.set(key, new Set([existing, request]))
      count++
      let done = false
      return () => {
        if (done) return
        done = true
        count--
        const current = entries.get(key)
        if (current === request) entries.delete(key)
        else if (current instanceof Set) {
          current.delete(request)
          if (current.size === 0) entries.delete(key)
        }
      }
    },
    cancel: (principal, id) => {
      const requestId = asId(id)
      if (requestId === undefined) return 0
      const current = entries.get(keyOf(principal, requestId))
      if (current === undefined) return 0
      const targets = current instanceof Set ? [...current] : [current]
      for (const target of targets) target.cancel()
      return targets.length
    },
    size: () => count
  }
}
