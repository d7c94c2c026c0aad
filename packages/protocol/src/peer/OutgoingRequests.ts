/**
 * The requests a peer sends to the other side, each waiting for its response: for a server, the
 * initialize-era dialects' (2025-11-25) `elicitation/create`, `sampling/createMessage` and
 * `roots/list` sent on the stream of the request whose handler asked.
 *
 * One registry per session (a stdio connection, an HTTP `Mcp-Session-Id`) numbers the requests it
 * sends (`"snodo-1"`, `"snodo-2"`, …, never reused) and hands each response the transport
 * receives to the request it answers; a response to nothing pending is ignored. The wait is
 * bounded: past its timeout the request fails with `Timeout` and the client is sent
 * `notifications/cancelled` for it, as it is when the waiting handler is interrupted (the client
 * cancelled its own request, the deadline passed, the transport closed). At most `maxPending`
 * requests wait at once (`Busy` beyond); closing the registry fails every waiting one (`Closed`).
 *
 * The deadline is hand-written rather than `Effect.timeoutOrElse`: that raced two forked fibers per
 * request (the write-and-wait and the sleep), ~5 of the ~23 µs of CPU a client spent per
 * sequential call in process, and a Node timer per request cost ~1 µs more. Here the write runs in
 * one fiber, the wait is the request's `Deferred`, and the deadline is an entry on the registry's
 * one timer on the live clock (a forked sleep on any other clock, e.g. `TestClock`); whichever of
 * answer, failed write and deadline comes first settles it.
 *
 * Handlers do not use this module: `Input.elicit`, `Input.sample` and `Input.roots` reach it
 * through the dialect (see server/ClientInput).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as OutgoingRequests from "@snodo/protocol/peer/OutgoingRequests"
 *
 * const requests = OutgoingRequests.make()
 * const roots = requests.send(sink, "roots/list", {}, "30 seconds")
 * // the transport, on a response frame: requests.receive(response)
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, type Fiber, Schema } from "effect"
import * as Encoder from "../jsonrpc/Encoder.ts"
import type * as Envelope from "../jsonrpc/Envelope.ts"
import type { RequestSink } from "./RequestSink.ts"
import { isObject } from "../wire/internal/IsObject.ts"

/**
 * Why a request to the client produced no result: no answer in time (`Timeout`), the client
 * answered with a JSON-RPC error (`Refused`, with that error), the session ended (`Closed`), or
 * too many requests wait already (`Busy`).
 *
 * @category errors
 * @since 0.1.0
 */
export class OutgoingRequestError extends Schema.TaggedError<OutgoingRequestError>()("OutgoingRequestError", {
  reason: Schema.Literals(["Timeout", "Refused", "Closed", "Busy"]),
  message: Schema.String,
  error: Schema.optional(Schema.Struct({ code: Schema.Number, message: Schema.String, data: Schema.optional(Schema.Unknown) }))
}) {}

/**
 * The server-to-client requests of one session.
 *
 * @category models
 * @since 0.1.0
 */
export interface OutgoingRequests {
  /**
   * Writes a request on `sink` and waits (at most `timeout`) for the client's result.
   * Interruption withdraws it (`notifications/cancelled`).
   */
  readonly send: (
    sink: RequestSink,
    method: string,
    params: Readonly<Record<string, unknown>>,
    timeout: Duration.Input,
    options?: SendOptions
  ) => Effect.Effect<unknown, OutgoingRequestError>
  /** Hands a response to the request it answers; `false` when it answers nothing pending. */
  readonly receive: (response: Envelope.Response) => boolean
  /** Fails every waiting request with `Closed` and refuses new ones. */
  readonly close: () => void
  /** Requests waiting for their answer. */
  readonly pending: () => number
}

/**
 * Options of one request.
 *
 * @category models
 * @since 0.1.0
 */
export interface SendOptions {
  /** Told the request's id before it is written (a client correlating what the id names, e.g. a listen stream). */
  readonly onId?: (id: string) => void
}

/**
 * Options of a registry.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Requests waiting at once (default 64). */
  readonly maxPending?: number
  /**
   * What each request id starts with (default `"snodo-"`): a registry of one session on several
   * instances names its requests apart (`"snodo-<instance>-1"`), so an answer reaching any of
   * them finds the one that asked.
   */
  readonly idPrefix?: string
}

const readError = (error: unknown): { readonly code: number; readonly message: string; readonly data?: unknown } => {
  if (!isObject(error)) return { code: -32603, message: "The client answered with a malformed error" }
  const code = typeof error["code"] === "number" ? error["code"] : -32603
  const message = typeof error["message"] === "string" ? error["message"] : "(no message)"
  return error["data"] === undefined ? { code, message } : { code, message, data: error["data"] }
}

/** The clock every fiber has unless a test (`TestClock`) or the application provides another. */
const liveClock = Context.get(Context.empty(), Clock.Clock)

/** The longest delay a JavaScript timer takes. */
const maxTimerMillis = 2 ** 31 - 1

const noDeadline = () => {}

interface Deadline {
  readonly at: number
  readonly expire: () => void
}

/** Node's timers can stop holding the process open (`unref`) and start again (`ref`); others cannot. */
type Timer = ReturnType<typeof setTimeout> & { readonly ref?: () => void; readonly unref?: () => void }

/**
 * The live-clock deadlines of one registry, on one timer armed for the earliest of them. A timer
 * per request cost a client ~8 % of its CPU per sequential call in process (Node builds and drops
 * a timer list, with its priority-queue entry, each time); here a request's deadline is an entry,
 * and the timer is re-armed only when a deadline comes earlier than the one it is armed for, or
 * when it fires. While no deadline is pending it stays armed but no longer holds the process open.
 */
const makeDeadlines = () => {
  const pending = new Set<Deadline>()
  let timer: Timer | undefined
  let armedAt = Infinity
  const arm = (at: number, now: number): void => {
    if (timer !== undefined) clearTimeout(timer)
    armedAt = at
    timer = setTimeout(sweep, Math.min(Math.max(0, at - now), maxTimerMillis)) as Timer
  }
  const sweep = (): void => {
    timer = undefined
    armedAt = Infinity
    const now = performance.now()
    let next = Infinity
    for (const deadline of pending) {
      if (deadline.at <= now) {
        pending.delete(deadline)
        deadline.expire()
      } else if (deadline.at < next) next = deadline.at
    }
    if (next < Infinity) arm(next, now)
  }
  return {
    start: (millis: number, expire: () => void): () => void => {
      const now = performance.now()
      const deadline: Deadline = { at: now + millis, expire }
      pending.add(deadline)
      if (timer === undefined || deadline.at < armedAt) arm(deadline.at, now)
      else if (pending.size === 1) timer.ref?.()
      return () => {
        if (pending.delete(deadline) && pending.size === 0) timer?.unref?.()
      }
    },
    close: (): void => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      armedAt = Infinity
      pending.clear()
    }
  }
}

/**
 * Calls `expire` once `millis` have passed on the fiber's clock, unless the returned function
 * is called first. On the live clock an entry in the registry's {@link makeDeadlines} (no fiber,
 * no timer of its own); on another clock (`TestClock`) a forked sleep, so tests move time as they
 * do for every other wait.
 */
const startDeadline = (
  deadlines: ReturnType<typeof makeDeadlines>,
  fiber: Fiber.Fiber<unknown, unknown>,
  millis: number,
  expire: () => void
): () => void => {
  if (!(millis < Infinity)) return noDeadline
  if (fiber.getRef(Clock.Clock) === liveClock) return deadlines.start(millis, expire)
  const sleeping = Effect.runForkWith(fiber.context)(Effect.andThen(Effect.sleep(millis), Effect.sync(expire)))
  return () => sleeping.interruptUnsafe()
}

/**
 * A new registry.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): OutgoingRequests => {
  const maxPending = options?.maxPending ?? 64
  const idPrefix = options?.idPrefix ?? "snodo-"
  const waiting = new Map<string, Deferred.Deferred<unknown, OutgoingRequestError>>()
  const deadlines = makeDeadlines()
  let next = 0
  let closed = false

  const withdraw = (sink: RequestSink, id: string, reason: string) =>
    Effect.ignore(sink.write(Encoder.notification("notifications/cancelled", { requestId: id, reason })))

  const send: OutgoingRequests["send"] = (sink, method, params, timeout, sendOptions) =>
    Effect.withFiber((fiber) => {
      if (closed) return Effect.fail(new OutgoingRequestError({ reason: "Closed", message: "The session has ended" }))
      if (waiting.size >= maxPending) {
        return Effect.fail(new OutgoingRequestError({ reason: "Busy", message: `At most ${maxPending} requests to the client wait at once` }))
      }
      const id = `${idPrefix}${++next}`
      const answer = Deferred.makeUnsafe<unknown, OutgoingRequestError>()
      waiting.set(id, answer)
      sendOptions?.onId?.(id)
      const millis = typeof timeout === "number" ? timeout : Duration.toMillis(Duration.fromInputUnsafe(timeout))
      // The deadline covers the write and the wait for the answer. The write runs in a fiber of
      // its own (it completes at once unless the channel pushes back): whichever comes first,
      // the answer, a failed write or the deadline, completes `answer`, which is all the request
      // waits for, and the rest is called off (see the module header).
      let expired = false
      const writing = Effect.runForkWith(fiber.context)(
        Effect.catchTag(sink.write(Encoder.request(id, method, params)), "SinkClosed", () =>
          Effect.sync(() =>
            void Deferred.doneUnsafe(answer, Exit.fail(new OutgoingRequestError({ reason: "Closed", message: "The request's stream has ended" })))
          ))
      )
      const cancelDeadline = startDeadline(deadlines, fiber, millis, () => {
        expired = true
        writing.interruptUnsafe()
        Deferred.doneUnsafe(answer, Exit.fail(new OutgoingRequestError({ reason: "Timeout", message: `The client did not answer ${method} within ${millis} ms` })))
      })
      return Effect.onExit(Deferred.await(answer), (exit) => {
        cancelDeadline()
        writing.interruptUnsafe()
        const reason = Exit.isSuccess(exit) ? undefined
          : Cause.hasInterruptsOnly(exit.cause) ? "The request that asked was cancelled"
          : expired ? "timed out"
          : undefined
        if (reason === undefined) {
          waiting.delete(id)
          return Effect.void
        }
        return Effect.ensuring(withdraw(sink, id, reason), Effect.sync(() => void waiting.delete(id)))
      })
    })

  const receive = (response: Envelope.Response): boolean => {
    const id = response.id
    if (typeof id !== "string") return false
    const answer = waiting.get(id)
    if (answer === undefined) return false
    waiting.delete(id)
    if (response.error !== undefined) {
      const error = readError(response.error)
      Deferred.doneUnsafe(answer, Exit.fail(new OutgoingRequestError({ reason: "Refused", message: error.message, error })))
    } else {
      Deferred.doneUnsafe(answer, Exit.succeed(response.result))
    }
    return true
  }

  const close = () => {
    closed = true
    const failure = Exit.fail(new OutgoingRequestError({ reason: "Closed", message: "The session has ended" }))
    for (const answer of waiting.values()) Deferred.doneUnsafe(answer, failure)
    waiting.clear()
    deadlines.close()
  }

  return { send, receive, close, pending: () => waiting.size }
}
