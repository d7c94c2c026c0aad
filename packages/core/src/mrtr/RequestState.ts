/**
 * Sealed request state: the `requestState` string of an `input_required` result.
 *
 * The state travels through the client, so it is attacker-controlled input. A token is
 *
 * ```
 * v1.<key id>.<expiry ms>.<payload, base64url JSON>.<HMAC-SHA256, base64url>
 * ```
 *
 * and the MAC covers the version, the key id, the expiry, the method, the canonical params (without
 * top-level `_meta`, `requestState` and `inputResponses`; key order irrelevant, array order and
 * value types significant), the principal and the payload text. Verification recomputes the MAC
 * with the named key and compares the two encodings in constant time, so a token changed in any
 * byte, presented on other arguments or by another principal, sealed by an unknown key, expired, or
 * longer than 16 KiB is refused — always with the same -32602 "Invalid or expired request state",
 * so that a prober learns nothing about which rule failed.
 *
 * The payload is signed, not encrypted: the client can read it. Never put secrets in state.
 *
 * @example
 * ```ts
 * import * as RequestState from "@snodo/core/extension/RequestState"
 * import * as Methods from "@snodo/protocol/methods/Methods"
 *
 * const binding = { method: Methods.ToolsCall.name, params: { name: "book", arguments: { city: "Oslo" } }, principal: "anonymous" }
 * const token = RequestState.seal(keyring, binding, { answers: {}, states: { step: 1 } }, Date.now())
 * const opened = RequestState.open(keyring, binding, token, Date.now())
 * ```
 *
 * @since 0.1.0
 */
import type * as NodeCrypto from "node:crypto"
import { Duration } from "effect"
import { InternalError, InvalidParams } from "@snodo/protocol/jsonrpc/McpError"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import { type Keyring, maxTtl } from "./Keyring.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

/**
 * Longest token accepted or produced, in bytes.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxTokenBytes = 16 * 1024

/**
 * Largest input responses a request may carry, in bytes of JSON, counting those carried by its
 * `requestState` from earlier rounds: what a sealed state can always hold (Base64 grows it by a
 * third, under {@link maxTokenBytes}). More is refused with -32602 before the handler runs.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxInputResponsesBytes = 8 * 1024

const version = "v1"
const domain = "snodo/mrtr-request-state/1"
const tokenPattern = /^v1\.([A-Za-z0-9_-]{1,32})\.(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{43})$/
const maxTtlMillis = Duration.toMillis(maxTtl)

/**
 * What a token is bound to.
 *
 * @category models
 * @since 0.1.0
 */
export interface Binding {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
  readonly principal: string
}

/**
 * What a token carries between rounds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Payload {
  /** Input responses already consumed by the handler, by request key. */
  readonly answers: Readonly<Record<string, JsonValue>>
  /** Values stored with `Input.state`, by state key. */
  readonly states: Readonly<Record<string, JsonValue>>
  /** The state of a handler that returned a low-level `InputRequired`. */
  readonly raw?: JsonValue
  /** The round that sealed it (1 for a request without `requestState`); absent means 1. */
  readonly round?: number
}

/**
 * The one error every verification failure answers with.
 *
 * @category combinators
 * @since 0.1.0
 */
export const invalid = (): InvalidParams => new InvalidParams({ message: "Invalid or expired request state" })

const excluded = new Set(["_meta", "requestState", "inputResponses"])

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` members dropped as
 * `JSON.stringify` does. Arrays keep their order; a number, a string and a boolean never encode
 * alike.
 *
 * @category combinators
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null) return "null"
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null"
    case "bigint":
      return value.toString()
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (Array.isArray(value)) return `[${value.map((item) => item === undefined ? "null" : canonicalJson(item)).join(",")}]`
      const record = value as Record<string, unknown>
      const keys = Object.keys(record).filter((key) => record[key] !== undefined).toSorted()
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
    }
    default:
      return "null"
  }
}

/**
 * The canonical text of the params a token is bound to.
 *
 * @category combinators
 * @since 0.1.0
 */
const boundParams = (params: Readonly<Record<string, unknown>>): string => {
  const kept: Record<string, unknown> = {}
  for (const key of Object.keys(params)) if (!excluded.has(key)) kept[key] = params[key]
  return canonicalJson(kept)
}

/** `node:crypto`, loaded at the first seal or open (a server whose tools never ask for input never loads it). */
const nodeCrypto = (): typeof NodeCrypto => process.getBuiltinModule("node:crypto")

const macOf = (key: Keyring["Service"]["keys"][number], binding: Binding, expiry: string, payload: string): string =>
  nodeCrypto().createHmac("sha256", key.secret)
    .update(JSON.stringify([domain, key.id, expiry, binding.method, boundParams(binding.params), binding.principal, payload]))
    .digest("base64url")

const payloadJson = (payload: Payload): string => {
  const body: Record<string, unknown> = {}
  if (Object.keys(payload.answers).length > 0) body["a"] = payload.answers
  if (Object.keys(payload.states).length > 0) body["s"] = payload.states
  if (payload.raw !== undefined) body["u"] = payload.raw
  if (payload.round !== undefined && payload.round > 1) body["r"] = payload.round
  return JSON.stringify(body)
}

/**
 * Seals a payload with the keyring's newest key, valid for the keyring's TTL from `now`.
 * A token that would exceed {@link maxTokenBytes} is a server error (the handler stores too much).
 *
 * @category combinators
 * @since 0.1.0
 */
export const seal = (keyring: Keyring["Service"], binding: Binding, payload: Payload, now: number): string | InternalError => {
  const key = keyring.keys[0]!
  const expiry = String(Math.floor(now) + keyring.ttlMillis)
  const body = Buffer.from(payloadJson(payload), "utf8").toString("base64url")
  const token = `${version}.${key.id}.${expiry}.${body}.${macOf(key, binding, expiry, body)}`
  return token.length > maxTokenBytes
    ? new InternalError({ message: "Request state too large" })
    : token
}

/**
 * Verifies a token against this request and returns what it carries, or the -32602 every failure
 * shares.
 *
 * @category combinators
 * @since 0.1.0
 */
export const open = (keyring: Keyring["Service"], binding: Binding, token: string, now: number): Payload | InvalidParams => {
  if (token.length > maxTokenBytes) return invalid()
  const parts = tokenPattern.exec(token)
  if (parts === null) return invalid()
  const [, id, expiry, body, mac] = parts as unknown as [string, string, string, string, string]
  const key = keyring.keys.find((candidate) => candidate.id === id)
  if (key === undefined) return invalid()
  const expected = Buffer.from(macOf(key, binding, expiry, body), "ascii")
  const given = Buffer.from(mac, "ascii")
  if (expected.length !== given.length || !nodeCrypto().timingSafeEqual(expected, given)) return invalid()
  const expires = Number(expiry)
  if (now >= expires || expires - now > maxTtlMillis) return invalid()
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
  } catch {
    return invalid()
  }
  if (!isObject(decoded)) return invalid()
  const answers = decoded["a"] ?? {}
  const states = decoded["s"] ?? {}
  if (!isObject(answers) || !isObject(states)) return invalid()
  const raw = decoded["u"] as JsonValue | undefined
  const round = decoded["r"]
  const carried: Payload = {
    answers: answers as Payload["answers"],
    states: states as Payload["states"],
    ...(raw === undefined ? {} : { raw }),
    ...(typeof round === "number" && Number.isSafeInteger(round) && round > 1 ? { round } : {})
  }
  return carried
}
