/**
 * The keys that seal MRTR request state.
 *
 * A keyring holds one to eight HMAC-SHA256 secrets, each with an id and at least 32 bytes. The
 * first key signs every new `requestState`; every key verifies. Rotating is prepending a new key
 * (and, a TTL later, dropping the oldest): rounds already in flight keep verifying. Every instance
 * that serves the same clients must hold the same keys.
 *
 * With no `Keyring` in the server's context, `McpServer.layer` generates an ephemeral one and logs
 * that rounds will not survive a restart or cross instances.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { Keyring } from "@snodo/core/Keyring"
 *
 * // Newest first: "k2" signs, "k1" still verifies.
 * const Keys = Keyring.layer({
 *   keys: [
 *     { id: "k2", secret: Redacted.make(process.env.MRTR_KEY_2 ?? "") },
 *     { id: "k1", secret: Redacted.make(process.env.MRTR_KEY_1 ?? "") }
 *   ],
 *   ttl: "5 minutes"
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as NodeCrypto from "node:crypto"
import { type Config, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"

/**
 * Default lifetime of a sealed request state: 300 s.
 *
 * @category constants
 * @since 0.1.0
 */
const defaultTtl: Duration.Duration = Duration.seconds(300)

/**
 * Longest lifetime a keyring accepts: 900 s.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxTtl: Duration.Duration = Duration.seconds(900)

/**
 * Most keys a keyring holds.
 *
 * @category constants
 * @since 0.1.0
 */
const maxKeys = 8

/**
 * Fewest secret bytes a key needs.
 *
 * @category constants
 * @since 0.1.0
 */
const minSecretBytes = 32

const keyIdPattern = /^[A-Za-z0-9_-]{1,32}$/

/**
 * Raised when a keyring cannot be built: the message names the rule, never a secret.
 *
 * @category errors
 * @since 0.1.0
 */
export class KeyringError extends Schema.TaggedError<KeyringError>()("KeyringError", {
  message: Schema.String
}) {}

/**
 * One verification key. The secret never leaves the `KeyObject`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Key {
  readonly id: string
  readonly secret: NodeCrypto.KeyObject
}

/**
 * A secret as the application supplies it: raw bytes, or a base64 / base64url string (wrapped in
 * `Redacted` so that it never reaches a log).
 *
 * @category models
 * @since 0.1.0
 */
export type Secret = Uint8Array | Redacted.Redacted<string>

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Newest first: the first key signs, all verify. */
  readonly keys: ReadonlyArray<{ readonly id: string; readonly secret: Secret }>
  /** How long a sealed state stays valid (default 300 s, at most 900 s). */
  readonly ttl?: Duration.Input
}

/**
 * The keyring service.
 *
 * @category services
 * @since 0.1.0
 */
export class Keyring extends Context.Service<Keyring, {
  /** Newest first; `keys[0]` signs. */
  readonly keys: ReadonlyArray<Key>
  readonly ttlMillis: number
  /** Generated at start: rounds do not survive a restart and do not cross instances. */
  readonly ephemeral: boolean
}>()("@snodo/core/Keyring") {
  /** Validates options into a keyring. */
  static readonly make = (options: Options): Effect.Effect<Keyring["Service"], KeyringError> =>
    Effect.suspend(() => {
      const built = build(options, false)
      return built instanceof KeyringError ? Effect.fail(built) : Effect.succeed(built)
    })

  /** A keyring of these keys. */
  static readonly layer = (options: Options): Layer.Layer<Keyring, KeyringError> =>
    Layer.effect(Keyring, Keyring.make(options))

  /**
   * A keyring read from configuration: `id:secret` pairs separated by commas, newest first, with
   * base64 or base64url secrets (default variable `SNODO_MRTR_KEYS`).
   */
  static readonly layerConfig = (
    config?: Config.Config<Redacted.Redacted<string>>,
    options?: { readonly ttl?: Duration.Input }
  ): Layer.Layer<Keyring, KeyringError | Config.ConfigError> =>
    Layer.effect(
      Keyring,
      Effect.gen(function*() {
        // effect/Config (with the file system modules its providers load) is imported only by a
        // program that reads its keyring from configuration, not at every server's start.
        const source = config ?? (yield* Effect.promise(() => import("effect/Config"))).Redacted("SNODO_MRTR_KEYS")
        const text = Redacted.value(yield* source)
        const keys: Array<{ id: string; secret: Secret }> = []
        for (const entry of text.split(",")) {
          const colon = entry.indexOf(":")
          if (colon <= 0) return yield* new KeyringError({ message: "Keyring configuration must be id:secret pairs separated by commas" })
          keys.push({ id: entry.slice(0, colon).trim(), secret: Redacted.make(entry.slice(colon + 1).trim()) })
        }
        return yield* Keyring.make(options?.ttl === undefined ? { keys } : { keys, ttl: options.ttl })
      })
    )

  /** A fresh random key held only by this process. */
  static readonly ephemeral = (options?: { readonly ttl?: Duration.Input }): Effect.Effect<Keyring["Service"], KeyringError> =>
    Effect.suspend(() => {
      const built = generate(options?.ttl)
      return built instanceof KeyringError ? Effect.fail(built) : Effect.succeed(built)
    })

  /** An ephemeral keyring as a layer. */
  static readonly layerEphemeral = (options?: { readonly ttl?: Duration.Input }): Layer.Layer<Keyring, KeyringError> =>
    Layer.effect(Keyring, Keyring.ephemeral(options))
}

const base64Text = /^[A-Za-z0-9+/_-]+={0,2}$/

const secretBytes = (secret: Secret): Uint8Array | undefined => {
  if (secret instanceof Uint8Array) return secret
  const text = Redacted.value(secret)
  if (!base64Text.test(text)) return undefined
  return Buffer.from(text.replaceAll("-", "+").replaceAll("_", "/"), "base64")
}

/**
 * `node:crypto`, loaded where a key is first made: loading it (about twenty of Node's internal
 * modules) was a measurable part of every server's start, and a server whose tools never ask for
 * input never seals request state.
 */
const nodeCrypto = (): typeof NodeCrypto => process.getBuiltinModule("node:crypto")

const ttlMillisOf = (input: Duration.Input | undefined): number | KeyringError => {
  const ttl = input === undefined ? Option.some(defaultTtl) : Duration.fromInput(input)
  const ttlMillis = Option.isSome(ttl) ? Duration.toMillis(ttl.value) : Number.NaN
  if (!(ttlMillis > 0) || !Number.isFinite(ttlMillis)) return new KeyringError({ message: "The request state TTL must be positive" })
  if (ttlMillis > Duration.toMillis(maxTtl)) return new KeyringError({ message: "The request state TTL must be at most 900 seconds" })
  return Math.floor(ttlMillis)
}

const build = (options: Options, ephemeral: boolean): Keyring["Service"] | KeyringError => {
  const refuse = (message: string) => new KeyringError({ message })
  if (options.keys.length === 0) return refuse("A keyring needs at least one key")
  if (options.keys.length > maxKeys) return refuse(`A keyring holds at most ${maxKeys} keys`)
  const ttlMillis = ttlMillisOf(options.ttl)
  if (ttlMillis instanceof KeyringError) return ttlMillis
  const seen = new Set<string>()
  const keys: Array<Key> = []
  for (const key of options.keys) {
    if (!keyIdPattern.test(key.id)) return refuse("Key ids are 1 to 32 characters of A-Z, a-z, 0-9, _ and -")
    if (seen.has(key.id)) return refuse(`Duplicate key id "${key.id}"`)
    seen.add(key.id)
    const bytes = secretBytes(key.secret)
    if (bytes === undefined) return refuse(`Key "${key.id}": the secret is not base64`)
    if (bytes.byteLength < minSecretBytes) return refuse(`Key "${key.id}": the secret must have at least ${minSecretBytes} bytes`)
    keys.push({ id: key.id, secret: nodeCrypto().createSecretKey(bytes) })
  }
  return { keys, ttlMillis, ephemeral }
}

/**
 * Generates an ephemeral keyring synchronously (one random 32-byte key, made when the keyring
 * first seals or opens a request state, so that a server whose tools never ask for input does not
 * load `node:crypto` to start). With the default TTL it cannot fail.
 *
 * @category combinators
 * @since 0.1.0
 */
export function generate(): Keyring["Service"]
export function generate(ttl: Duration.Input | undefined): Keyring["Service"] | KeyringError
export function generate(ttl?: Duration.Input): Keyring["Service"] | KeyringError {
  const ttlMillis = ttlMillisOf(ttl)
  if (ttlMillis instanceof KeyringError) return ttlMillis
  let keys: ReadonlyArray<Key> | undefined
  return {
    get keys() {
      if (keys === undefined) {
        const { createSecretKey, randomBytes } = nodeCrypto()
        keys = [{ id: `ephemeral-${randomBytes(6).toString("hex")}`, secret: createSecretKey(randomBytes(minSecretBytes)) }]
      }
      return keys
    },
    ttlMillis,
    ephemeral: true
  }
}

/**
 * A keyring of these keys (module-level form of `Keyring.layer`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = Keyring.layer

/**
 * A keyring read from configuration (module-level form of `Keyring.layerConfig`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerConfig = Keyring.layerConfig

/**
 * An ephemeral keyring (module-level form of `Keyring.layerEphemeral`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerEphemeral = Keyring.layerEphemeral
