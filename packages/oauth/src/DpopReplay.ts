/**
 * Where the resource server remembers the DPoP proofs it accepted, so that a proof is accepted
 * once (RFC 9449 §11.1). A proof is named by its key's thumbprint and its `jti`, and remembered
 * until it could no longer pass the `iat` window anyway.
 *
 * Without this service, `Dpop` remembers proofs in the process ({@link makeMemory}, bounded by
 * `replayCapacity`): a proof replayed to another instance behind the same load balancer is
 * accepted there. Several instances share one memory by providing the same store to each, as
 * `@snodo/postgres/PgDpopReplay` does on PostgreSQL.
 *
 * A store that cannot answer fails with {@link ReplayUnavailable}; the proof is then refused
 * (fail closed), and the client retries with a fresh one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as DpopReplay from "@snodo/oauth/DpopReplay"
 *
 * const memory = DpopReplay.makeMemory(1_000)
 * const program = Effect.gen(function*() {
 *   const first = yield* memory.claim("thumbprint.jti-1", Date.now(), Date.now() + 120_000)
 *   const again = yield* memory.claim("thumbprint.jti-1", Date.now(), Date.now() + 120_000)
 *   return [first, again] // [true, false]
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"

/**
 * The store could not say whether a proof was seen (a database down, a timeout).
 *
 * @category errors
 * @since 0.1.0
 */
export class ReplayUnavailable extends Schema.TaggedError<ReplayUnavailable>()("ReplayUnavailable", {
  message: Schema.String
}) {}

/**
 * @category services
 * @since 0.1.0
 */
export class DpopReplay extends Context.Service<DpopReplay, {
  /**
   * Remembers `key` until `expiresAt` (epoch milliseconds): `true` when it was not remembered at
   * `now` (the proof is fresh), `false` when it was (a replay). Atomic: of two claims of one key,
   * at most one gets `true`.
   */
  readonly claim: (key: string, now: number, expiresAt: number) => Effect.Effect<boolean, ReplayUnavailable>
}>()("@snodo/oauth/DpopReplay") {}

/**
 * How many proofs an in-process memory keeps unless told otherwise.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultCapacity = 100_000

/**
 * A memory of one process, holding at most `capacity` proofs: expired ones are forgotten first,
 * then the oldest (whose replay is then accepted, the price of a bound).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (capacity: number = defaultCapacity): DpopReplay["Service"] => {
  /** Proofs with the time they stop mattering (insertion order is expiry order within one window). */
  const seen = new Map<string, number>()
  return {
    claim: (key, now, expiresAt) =>
      Effect.sync(() => {
        for (const [entry, until] of seen) {
          if (until > now && seen.size < capacity) break
          seen.delete(entry)
        }
        if ((seen.get(key) ?? 0) > now) return false
        seen.set(key, expiresAt)
        return true
      })
  }
}

/**
 * {@link makeMemory} as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (capacity?: number): Layer.Layer<DpopReplay> => Layer.sync(DpopReplay, () => makeMemory(capacity))
