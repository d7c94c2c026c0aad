/**
 * The caller's W3C Trace Context (https://www.w3.org/TR/trace-context/), as a server receives it
 * in a request's `_meta` (`traceparent`, `tracestate`) or, over HTTP, in the headers of the same
 * names.
 *
 * Parsing is strict and never throws: a `traceparent` that breaks any rule of the specification
 * (wrong lengths, uppercase hex, version `ff`, an all-zero trace or parent id, extra fields on
 * version `00`, more than 512 characters) is no trace context at all, and the server starts a new
 * trace. A `tracestate` that breaks a rule (more than 32 list-members or 512 characters, a bad
 * key or value, a duplicate key) is dropped on its own; the `traceparent` still counts.
 *
 * @example
 * ```ts
 * import { Effect, Tracer } from "effect"
 * import * as TraceContext from "@snodo/core/extension/TraceContext"
 *
 * const context = TraceContext.fromMeta({
 *   traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
 *   tracestate: "congo=t61rcWkgMzE"
 * })
 * // context?.traceId === "0af7651916cd43dd8448eb211c80319c", context?.sampled === true
 *
 * const handle = Effect.log("handling").pipe(Effect.withSpan("handle"))
 * const traced = context === undefined ? handle : Effect.provideService(handle, Tracer.ParentSpan, TraceContext.toSpan(context))
 * ```
 *
 * @since 0.1.0
 */
import { Tracer } from "effect"

/**
 * A valid trace context: the caller's trace and span (the parent of the server's span), whether
 * the caller sampled it, and its vendor `tracestate`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TraceContext {
  /** 32 lowercase hex characters, not all zeros. */
  readonly traceId: string
  /** 16 lowercase hex characters, not all zeros: the caller's span, the parent of ours. */
  readonly spanId: string
  /** Bit 0 (`sampled`) of the trace-flags. */
  readonly sampled: boolean
  /**
   * The validated `tracestate`: its non-empty list-members, trimmed and re-joined with `","`;
   * `undefined` when it is absent, invalid or has no list-member.
   */
  readonly traceState: string | undefined
}

/** The longest `traceparent` or `tracestate` value accepted. */
const maxLength = 512

/** The most list-members a `tracestate` may have. */
const maxMembers = 32

/** `version-traceid-parentid-flags`, the first 55 characters of every version. */
const traceparentHead = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

const allZeros = /^0+$/

/** A simple key, or a multi-tenant key `tenant@system`. */
const tracestateKey = /^(?:[a-z0-9][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/

/** 1 to 256 printable ASCII characters other than `,` and `=`, not ending with a space. */
const tracestateValue = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/

const isOws = (char: string | undefined): boolean => char === " " || char === "\t"

/** Removes the optional whitespace (spaces and tabs, nothing else) around a value. */
const trimOws = (value: string): string => {
  let start = 0
  let end = value.length
  while (start < end && isOws(value[start])) start++
  while (end > start && isOws(value[end - 1])) end--
  return value.slice(start, end)
}

/** The validated list-members of a `tracestate` re-joined with `","`, or undefined. */
const parseTraceState = (tracestate: unknown): string | undefined => {
  if (typeof tracestate !== "string" || tracestate.length > maxLength) return undefined
  const members: Array<string> = []
  const keys = new Set<string>()
  for (const raw of tracestate.split(",")) {
    const member = trimOws(raw)
    if (member === "") continue
    if (members.length === maxMembers) return undefined
    const equals = member.indexOf("=")
    if (equals === -1) return undefined
    const key = member.slice(0, equals)
    const value = member.slice(equals + 1)
    if (!tracestateKey.test(key) || !tracestateValue.test(value) || keys.has(key)) return undefined
    keys.add(key)
    members.push(member)
  }
  return members.length === 0 ? undefined : members.join(",")
}

/**
 * Parses a `traceparent` value (and an optional `tracestate`); `undefined` when the
 * `traceparent` is not a valid one (never throws). An invalid `tracestate` alone is dropped
 * (`traceState` is `undefined`) and the `traceparent` still counts.
 *
 * Versions above `00` are read as the specification asks: the first 55 characters as version
 * `00`, the fields after them (if any, following a `-`) ignored.
 *
 * @category combinators
 * @since 0.1.0
 */
export const parse = (traceparent: unknown, tracestate?: unknown): TraceContext | undefined => {
  if (typeof traceparent !== "string" || traceparent.length > maxLength) return undefined
  const value = trimOws(traceparent)
  const head = traceparentHead.exec(value.slice(0, 55))
  if (head === null) return undefined
  const [, version, traceId, spanId, flags] = head
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined
  if (version === "ff") return undefined
  if (version === "00" ? value.length !== 55 : value.length > 55 && value[55] !== "-") return undefined
  if (allZeros.test(traceId) || allZeros.test(spanId)) return undefined
  return {
    traceId,
    spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    traceState: parseTraceState(tracestate)
  }
}

/**
 * Reads `traceparent` and `tracestate` from a request's `_meta` (its own properties only);
 * `undefined` when `meta` is not an object or carries no valid `traceparent`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromMeta = (meta: unknown): TraceContext | undefined => {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined
  const record = meta as Readonly<Record<string, unknown>>
  const own = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined)
  return parse(own("traceparent"), own("tracestate"))
}

/**
 * The parent span for Effect's tracer: the caller's span, as an external span (provide it as
 * `Tracer.ParentSpan`, or pass it as a span's `parent`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const toSpan = (context: TraceContext): Tracer.ExternalSpan =>
  Tracer.externalSpan({ traceId: context.traceId, spanId: context.spanId, sampled: context.sampled })
