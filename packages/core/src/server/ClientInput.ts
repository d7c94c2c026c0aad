/**
 * The initialize-era side of {@link Input} (dialects with `inputs: "requests"`): a handler's asks
 * become server-to-client requests (`elicitation/create`, `sampling/createMessage`, `roots/list`)
 * written on the request's own stream, and the handler's fiber resumes with the answers. The same
 * handler serves 2026-07-28 as MRTR rounds (internal/Round) without a change.
 *
 * - An ask is checked against the capabilities the client declared in `initialize` (-32021 naming
 *   what is missing, as on 2026-07-28), then sent; the asks of one `Input.all` go out together.
 *   An answer is validated as an MRTR response is (-32602 naming the key and the rule), and kept by
 *   key for the rest of the request.
 * - The wait is bounded (the server's `clientRequestTimeout`, default 60 s; an HTTP request's own
 *   deadline applies too): no answer in time is -32603 and the client is told
 *   `notifications/cancelled`. Cancelling the request interrupts the wait, and the client is told
 *   too. A client answering with an error ends the handler with -32603 carrying that error in
 *   `data.clientError`; a session that ended stops the handler without an answer.
 * - A low-level handler that returns an `InputRequired` is emulated: its input requests are sent,
 *   and the handler runs again with their answers as `Input.responses` and its `requestState`
 *   (at most 8 times per request).
 * - Without a channel (sessionless HTTP: no session to send on or answer to) an ask is -32603
 *   saying so, before its capabilities are looked at; `Input.supports` answers false there.
 *
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Exit, Result } from "effect"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import { InternalError, InvalidParams, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as AskedKeys from "../mrtr/AskedKeys.ts"
import type { Ask, Session } from "../mrtr/Input.ts"
import * as InputCapabilities from "../mrtr/InputCapabilities.ts"
import * as InputRequired from "../mrtr/InputRequired.ts"
import * as RequestState from "../mrtr/RequestState.ts"
import type { Provide } from "../routes/Route.ts"
import type { OutgoingRequestError, OutgoingRequests } from "@snodo/protocol/peer/OutgoingRequests"
import type { ProvideWith } from "../runtime/internal/RequestServices.ts"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import { requestProblem } from "../mrtr/internal/RequestProblem.ts"

/**
 * Where a request's asks go.
 *
 * @category models
 * @since 0.1.0
 */
export interface Channel {
  /** The session's server-to-client requests; `undefined` when there is no session to answer to. */
  readonly requests: OutgoingRequests | undefined
  /** The request's own stream; `undefined` when the transport cannot write on it. */
  readonly sink: RequestSink | undefined
  /** How long one answer may take (default 60 s). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * Runs of a handler that returns `InputRequired`, per request.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxRuns = 8

/**
 * Default wait for one answer.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultTimeout: Duration.Input = "60 seconds"

type Stop =
  | { readonly _tag: "Refuse"; readonly error: McpError }
  | { readonly _tag: "Returned"; readonly value: InputRequired.InputRequired }

const noChannel = (): InternalError => new InternalError({
  message:
    "This request cannot ask the client for input: server-to-client requests need a session (the server runs sessionless; over HTTP, enable them with the transport's `sessions: true` option)"
})

const defect = (message: string) => Effect.die(new Error(message))

/** The error ending a handler whose request to the client got no result. */
const failureOf = (method: string, error: OutgoingRequestError): McpError | undefined => {
  switch (error.reason) {
    case "Timeout":
      return new InternalError({ message: `The client did not answer ${method} in time` })
    case "Refused":
      return new InternalError({ message: `The client refused ${method}: ${error.message}`, data: { clientError: error.error } })
    case "Busy":
      return new InternalError({ message: error.message, data: { retryable: true } })
    case "Closed":
      return undefined
  }
}

/** The `Input` session of one request whose asks are sent to the client. */
class ClientSession implements Session {
  stop: Stop | undefined = undefined
  responses: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {}
  requestState: JsonValue | undefined = undefined
  private readonly asked = AskedKeys.make()
  private readonly answered = new Map<string, { readonly value: unknown; readonly carry: JsonValue }>()
  private readonly states = new Map<string, JsonValue>()
  private readonly capabilities: RequestMeta["clientCapabilities"]
  private readonly channel: Channel
  private readonly timeout: Duration.Input

  constructor(capabilities: RequestMeta["clientCapabilities"], channel: Channel) {
    this.capabilities = capabilities
    this.channel = channel
    this.timeout = channel.timeout ?? defaultTimeout
  }

  /** Ends the handler; a refusal wins over a returned `InputRequired`. */
  halt(next: Stop): Effect.Effect<never> {
    if (this.stop === undefined || (this.stop._tag !== "Refuse" && next._tag === "Refuse")) this.stop = next
    return Effect.interrupt
  }

  private refuse(error: McpError): Effect.Effect<never> {
    return this.halt({ _tag: "Refuse", error })
  }

  /** Sends `requests` (keyed) and returns their raw results, or the stop of the first that failed. */
  private send(requests: ReadonlyArray<readonly [string, InputRequest]>) {
    const { requests: channel, sink } = this.channel
    if (channel === undefined || sink === undefined) return Effect.fail(noChannel())
    return Effect.forEach(
      requests,
      ([, request]) => Effect.result(channel.send(sink, request.method, request.params ?? {}, this.timeout)),
      { concurrency: "unbounded" }
    ).pipe(
      Effect.flatMap((results) => {
        for (let index = 0; index < results.length; index++) {
          const result = results[index]!
          if (Result.isFailure(result)) {
            const error = failureOf(requests[index]![1].method, result.failure)
            return error === undefined ? Effect.interrupt : Effect.fail(error)
          }
        }
        return Effect.succeed(results.map((result) => Result.isSuccess(result) ? result.success : undefined))
      })
    )
  }

  ask(asks: ReadonlyArray<Ask<unknown>>): Effect.Effect<ReadonlyArray<unknown>> {
    return Effect.suspend(() => {
      const missing = new Map<string, Ask<unknown>>()
      for (const input of asks) {
        const conflict = this.asked.note(input)
        if (conflict !== undefined) return Effect.die(conflict)
        if (!this.answered.has(input.key)) missing.set(input.key, input)
      }
      const values = () => asks.map((input) => this.answered.get(input.key)!.value)
      if (missing.size === 0) return Effect.succeed(values())
      if (this.channel.requests === undefined || this.channel.sink === undefined) return this.refuse(noChannel())
      const lacking = [...missing.values()].flatMap((input) => {
        const fragment = InputCapabilities.missing(input.request, this.capabilities)
        return fragment === undefined ? [] : [fragment]
      })
      if (lacking.length > 0) return this.refuse(InputCapabilities.refusal(InputCapabilities.merge(lacking)))
      const pending = [...missing.values()]
      return this.send(pending.map((input) => [input.key, input.request] as const)).pipe(
        Effect.matchEffect({
          onFailure: (error) => this.refuse(error),
          onSuccess: (results) => {
            for (let index = 0; index < pending.length; index++) {
              const input = pending[index]!
              const decoded = input.decode(results[index])
              if (Result.isFailure(decoded)) {
                return this.refuse(new InvalidParams({ message: `Invalid input response "${input.key}": ${decoded.failure}` }))
              }
              this.answered.set(input.key, decoded.success)
            }
            return Effect.succeed(values())
          }
        })
      )
    })
  }

  returned(value: InputRequired.InputRequired): Effect.Effect<never> {
    return this.halt({ _tag: "Returned", value })
  }

  /** Answers a returned `InputRequired`: its requests are sent, and the next run sees the answers. */
  answer(value: InputRequired.InputRequired): Effect.Effect<void, McpError> {
    return Effect.suspend(() => {
      const requests = Object.entries(value.inputRequests)
      for (const [key, input] of requests) {
        const problem = requestProblem(input)
        if (problem !== undefined) return defect(`InputRequired request "${key}": ${problem}`)
      }
      if (requests.length === 0 && value.requestState === undefined) return defect("InputRequired needs inputRequests or requestState")
      if (requests.length > 0 && (this.channel.requests === undefined || this.channel.sink === undefined)) return Effect.fail(noChannel())
      const lacking = requests.flatMap(([, input]) => {
        const fragment = InputCapabilities.missing(input, this.capabilities)
        return fragment === undefined ? [] : [fragment]
      })
      if (lacking.length > 0) return Effect.fail(InputCapabilities.refusal(InputCapabilities.merge(lacking)))
      const answers = requests.length === 0 ? Effect.succeed([]) : this.send(requests)
      return Effect.map(answers, (results) => {
        const responses: Record<string, Readonly<Record<string, unknown>>> = {}
        requests.forEach(([key], index) => {
          const result = results[index]
          if (typeof result === "object" && result !== null) responses[key] = result as Readonly<Record<string, unknown>>
        })
        this.responses = responses
        this.requestState = value.requestState
      })
    })
  }

  supports(request: InputRequest): boolean {
    return this.channel.requests !== undefined && this.channel.sink !== undefined &&
      InputCapabilities.missing(request, this.capabilities) === undefined
  }

  requireCapabilities(required: Readonly<Record<string, unknown>>): Effect.Effect<void> {
    return Effect.suspend(() => {
      const lacking = InputCapabilities.lacking(required, this.capabilities)
      return lacking === undefined ? Effect.void : this.refuse(InputCapabilities.refusal(lacking))
    })
  }

  getState(key: string): JsonValue | undefined {
    return this.states.get(key)
  }

  setState(key: string, value: JsonValue | undefined): void {
    if (value === undefined) this.states.delete(key)
    else this.states.set(key, value)
  }

  answers(): Readonly<Record<string, JsonValue>> {
    return Object.fromEntries([...this.answered].map(([key, answer]) => [key, answer.carry]))
  }

  get invalidState(): Effect.Effect<never> {
    return Effect.suspend(() => this.refuse(RequestState.invalid()))
  }
}

/**
 * Runs a request whose handler may ask for input, sending its asks to the client on `channel`.
 * `body` receives the `provide` that gives the handler its request services and this session.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = <A>(
  channel: Channel,
  meta: RequestMeta,
  provide: ProvideWith,
  body: (provide: Provide) => Effect.Effect<A, McpError>
): Effect.Effect<A, McpError> => {
  const session = new ClientSession(meta.clientCapabilities, channel)
  const withInput: Provide = (effect) =>
    // A handler that completed with a value, or failed, is given as it is (it asked nothing).
    Immediate.isDone(effect) && (Exit.isFailure(effect) || !InputRequired.is(effect.value))
      ? provide(effect, session)
      : provide(Effect.flatMap(effect, (value) => InputRequired.is(value) ? session.returned(value) : Effect.succeed(value)), session)
  const attempt = (runs: number): Effect.Effect<A, McpError> =>
    Immediate.onExit(body(withInput), (exit): Effect.Effect<A, McpError> => {
      const stopped = session.stop
      if (stopped === undefined || (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause))) return exit
      session.stop = undefined
      if (stopped._tag === "Refuse") return Effect.fail(stopped.error)
      if (runs >= maxRuns) {
        return Effect.fail(new InternalError({ message: `The handler asked for input more than ${maxRuns} times` }))
      }
      return Effect.andThen(session.answer(stopped.value), attempt(runs + 1))
    })
  return attempt(1)
}
