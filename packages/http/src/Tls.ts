/**
 * The certificate a TLS listener presents, replaceable while it runs.
 *
 * `NodeServe` takes `tls` as a PEM key and certificate chain (what `node:tls` takes) or as the
 * {@link Certificates} made here, which hold the current pair: {@link reload} (say, on `SIGHUP`
 * after a renewal) checks the new pair and hands it to every listener serving it
 * (`setSecureContext`), so the next handshake presents it without a restart, while connections
 * already open keep theirs. A pair that does not load (a key that does not match its
 * certificate) is a `TlsError`, and the current one stays.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as NodeServe from "@snodo/http/NodeServe"
 * import * as Tls from "@snodo/http/Tls"
 *
 * const program = Effect.gen(function*() {
 *   const certificates = yield* Tls.fromFiles({ key: "/etc/mcp/key.pem", cert: "/etc/mcp/cert.pem" })
 *   process.on("SIGHUP", () => Effect.runFork(Tls.reloadFiles(certificates, { key: "/etc/mcp/key.pem", cert: "/etc/mcp/cert.pem" })))
 *   return yield* NodeServe.serve({ port: 443, host: "0.0.0.0", tls: certificates })
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type * as NodeTls from "node:tls"
import * as Builtins from "./Builtins.ts"

/**
 * PEM-encoded key and certificate chain (and a passphrase for an encrypted key), as `node:tls` takes them.
 *
 * @category models
 * @since 0.1.0
 */
export interface KeyPair {
  readonly key: string | Buffer
  readonly cert: string | Buffer
  readonly passphrase?: string | undefined
}

/**
 * Paths of a PEM key and certificate chain.
 *
 * @category models
 * @since 0.1.0
 */
export interface KeyPairFiles {
  readonly key: string
  readonly cert: string
}

/**
 * A key pair that `node:tls` refused, or files that could not be read.
 *
 * @category errors
 * @since 0.1.0
 */
export class TlsError extends Schema.TaggedError<TlsError>()("TlsError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * The certificate of a listener: its current key pair, and the listeners to tell when it changes.
 *
 * @category models
 * @since 0.1.0
 */
export interface Certificates {
  readonly _tag: "Certificates"
  /** The key pair the next handshake uses. */
  readonly current: () => KeyPair
  /** Calls `listener` with every key pair set from now on; the returned function stops it. */
  readonly subscribe: (listener: (pair: KeyPair) => void) => () => void
  /** Replaces the key pair (checked already). */
  readonly set: (pair: KeyPair) => void
}

/** Fails unless `node:tls` loads the key pair (a key that does not match its certificate, say). */
const check = (pair: KeyPair): Effect.Effect<KeyPair, TlsError> =>
  Effect.try({
    try: () => {
      Builtins.tls().createSecureContext(options(pair))
      return pair
    },
    catch: (cause) => new TlsError({ message: `TLS: the key and certificate were refused: ${String(cause)}`, cause })
  })

/**
 * The `node:tls` options of a key pair.
 *
 * @category combinators
 * @since 0.1.0
 */
export const options = (pair: KeyPair): NodeTls.SecureContextOptions => ({
  key: pair.key,
  cert: pair.cert,
  ...(pair.passphrase === undefined ? {} : { passphrase: pair.passphrase })
})

/**
 * Certificates from a key pair (fails when the key and certificate do not load or match).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (pair: KeyPair): Effect.Effect<Certificates, TlsError> =>
  Effect.map(check(pair), (initial) => {
    let current = initial
    const listeners = new Set<(pair: KeyPair) => void>()
    return {
      _tag: "Certificates",
      current: () => current,
      subscribe: (listener) => {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },
      set: (next) => {
        current = next
        for (const listener of listeners) listener(next)
      }
    }
  })

const read = (files: KeyPairFiles): Effect.Effect<KeyPair, TlsError> =>
  Effect.tryPromise({
    try: async () => ({ key: await Builtins.fs().readFile(files.key), cert: await Builtins.fs().readFile(files.cert) }),
    catch: (cause) => new TlsError({ message: `TLS: cannot read ${files.key} or ${files.cert}: ${String(cause)}`, cause })
  })

/**
 * Certificates read from PEM files.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromFiles = (files: KeyPairFiles): Effect.Effect<Certificates, TlsError> => Effect.flatMap(read(files), make)

/**
 * Replaces the certificate new connections are offered; when the new pair does not load, the
 * current one stays.
 *
 * @category combinators
 * @since 0.1.0
 */
export const reload = (certificates: Certificates, pair: KeyPair): Effect.Effect<void, TlsError> =>
  Effect.map(check(pair), certificates.set)

/**
 * Reads the files again and replaces the certificate new connections are offered; on failure the
 * current one stays.
 *
 * @category combinators
 * @since 0.1.0
 */
export const reloadFiles = (certificates: Certificates, files: KeyPairFiles): Effect.Effect<void, TlsError> =>
  Effect.flatMap(read(files), (pair) => reload(certificates, pair))

/**
 * What a TLS listener takes: a key pair, or {@link Certificates} (reloadable).
 *
 * @category models
 * @since 0.1.0
 */
export type TlsInput = KeyPair | Certificates

const isCertificates = (input: TlsInput): input is Certificates => "_tag" in input && input._tag === "Certificates"

/**
 * The certificates of a listener's `tls` option.
 *
 * @category constructors
 * @since 0.1.0
 */
export const certificates = (input: TlsInput): Effect.Effect<Certificates, TlsError> =>
  isCertificates(input) ? Effect.succeed(input) : make(input)
