/**
 * One round of a request that may answer `input_required` (`tools/call`, `resources/read`,
 * `prompts/get`): the runtime side of {@link Input}.
 *
 * Before the handler runs, the retry envelope is checked (`inputResponses` an object of objects,
 * `requestState` a string: otherwise -32602) and a presented `requestState` is verified against
 * this request (otherwise -32602 "Invalid or expired request state"). The handler then runs with
 * an {@link McpInput} session. When it stops for input, or returns a low-level `InputRequired`,
 * the round answers `{resultType: "input_required", inputRequests, requestState}` with a freshly
 * sealed state carrying the answers consumed so far and the handler's `Input.state` values; when
 * it stops with a refusal, the round fails with it.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect, Exit, Result, type Tracer } from "effect"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import type { Request } from "@snodo/protocol/jsonrpc/Envelope"
import { InvalidParams, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import * as AskedKeys from "../mrtr/AskedKeys.ts"
import type { Ask, Session } from "../mrtr/Input.ts"
import * as InputCapabilities from "../mrtr/InputCapabilities.ts"
import * as InputRequired from "../mrtr/InputRequired.ts"
import * as Semconv from "@snodo/protocol/methods/Semconv"
import type { Keyring } from "../mrtr/Keyring.ts"
import * as RequestState from "../mrtr/RequestState.ts"
import type { Provide } from "../routes/Route.ts"
import type { ProvideWith } from "../runtime/internal/RequestServices.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import * as LazyModule from "../pipeline/internal/LazyModule.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

/** How a handler's effect gets its request services (see routes/Route). */
export type { Provide } from "../routes/Route.ts"
/** How the runtime provides a handler's effect with the request's services plus a round's session. */
export type { ProvideWith } from "../runtime/internal/RequestServices.ts"

/**
 * What a round produced.
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome<A> =
  | { readonly _tag: "Complete"; readonly value: A }
  | { readonly _tag: "InputRequired"; readonly result: Record<string, unknown> }

/**
 * The retry fields of a request.
 *
 * @category models
 * @since 0.1.0
 */
export interface RetryEnvelope {
  readonly responses: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly requestState: string | undefined
}

/** The envelope of a request that retries nothing (most): no responses, no state. */
const firstRound: RetryEnvelope = { responses: {}, requestState: undefined }

/**
 * Reads `inputResponses` and `requestState`, refusing a malformed envelope.
 *
 * @category combinators
 * @since 0.1.0
 */
export const envelopeOf = (params: Readonly<Record<string, unknown>>): RetryEnvelope | InvalidParams => {
  const responses = params["inputResponses"]
  const state = params["requestState"]
  if (responses === undefined && state === undefined) return firstRound
  if (responses !== undefined) {
    if (!isObject(responses) || Object.values(responses).some((response) => !isObject(response))) {
      return new InvalidParams({ message: "Invalid params: inputResponses must map request keys to response objects" })
    }
  }
  if (state !== undefined && typeof state !== "string") {
    return new InvalidParams({ message: "Invalid params: requestState must be a string" })
  }
  return {
    responses: (responses ?? {}) as RetryEnvelope["responses"],
    requestState: state
  }
}

type Stop =
  | { readonly _tag: "Suspend" }
  | { readonly _tag: "Refuse"; readonly error: McpError }
  | { readonly _tag: "Returned"; readonly value: InputRequired.InputRequired }

const own = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

const defect = (message: string) => Effect.die(new Error(message))

/**
 * The checks of the input requests a low-level handler returns (with the elicitation form and
 * sampling rules), loaded when a round first ends with such requests.
 */
const requestProblems = LazyModule.make(() => import("../mrtr/internal/RequestProblem.ts"))

/**
 * The session of one round. Its maps are made on first use: most handlers never ask for input,
 * and a round that asks nothing costs one object.
 */
class RoundSession implements Session {
  stop: Stop | undefined = undefined
  private pendingMap: Map<string, InputRequest> | undefined
  private consumedMap: Map<string, JsonValue> | undefined
  private askedKeys: AskedKeys.AskedKeys | undefined
  private statesMap: Map<string, JsonValue> | undefined
  readonly responses: RetryEnvelope["responses"]
  readonly requestState: JsonValue | undefined
  private readonly carried: RequestState.Payload
  /** This round's number: one more than the round that sealed the presented state. */
  readonly round: number
  private readonly capabilities: RequestMeta["clientCapabilities"]

  constructor(envelope: RetryEnvelope, carried: RequestState.Payload, meta: RequestMeta) {
    this.responses = envelope.responses
    this.requestState = carried.raw
    this.carried = carried
    this.round = envelope.requestState === undefined ? 1 : (carried.round ?? 1) + 1
    this.capabilities = meta.clientCapabilities
  }

  get pending(): Map<string, InputRequest> {
    return this.pendingMap ??= new Map()
  }

  get consumed(): Map<string, JsonValue> {
    return this.consumedMap ??= new Map()
  }

  private get asked(): AskedKeys.AskedKeys {
    return this.askedKeys ??= AskedKeys.make()
  }

  get states(): Map<string, JsonValue> {
    return this.statesMap ??= new Map(Object.entries(this.carried.states))
  }

  /** Ends the handler; a refusal wins over a suspension. */
  halt(next: Stop): Effect.Effect<never> {
    if (this.stop === undefined || (this.stop._tag !== "Refuse" && next._tag === "Refuse")) this.stop = next
    return Effect.interrupt
  }

  ask(asks: ReadonlyArray<Ask<unknown>>): Effect.Effect<ReadonlyArray<unknown>> {
    return Effect.suspend(() => {
      const values: Array<unknown> = []
      const missing: Array<Ask<unknown>> = []
      for (const input of asks) {
        const conflict = this.asked.note(input)
        if (conflict !== undefined) return Effect.die(conflict)
        const fromState = own(this.carried.answers, input.key)
        const response = fromState ?? own(this.responses, input.key)
        if (response === undefined) {
          missing.push(input)
          continue
        }
        const decoded = input.decode(response)
        if (Result.isFailure(decoded)) {
          return this.halt({
            _tag: "Refuse",
            error: fromState !== undefined
              ? RequestState.invalid()
              : new InvalidParams({ message: `Invalid input response "${input.key}": ${decoded.failure}` })
          })
        }
        this.consumed.set(input.key, decoded.success.carry)
        values.push(decoded.success.value)
      }
      if (missing.length === 0) return Effect.succeed(values)
      const lacking = missing.flatMap((input) => {
        const fragment = InputCapabilities.missing(input.request, this.capabilities)
        return fragment === undefined ? [] : [fragment]
      })
      if (lacking.length > 0) return this.halt({ _tag: "Refuse", error: InputCapabilities.refusal(InputCapabilities.merge(lacking)) })
      for (const input of missing) this.pending.set(input.key, input.request)
      return this.halt({ _tag: "Suspend" })
    })
  }

  returned(value: InputRequired.InputRequired): Effect.Effect<never> {
    return this.halt({ _tag: "Returned", value })
  }

  supports(request: InputRequest): boolean {
    return InputCapabilities.missing(request, this.capabilities) === undefined
  }

  requireCapabilities(required: Readonly<Record<string, unknown>>): Effect.Effect<void> {
    return Effect.suspend(() => {
      const lacking = InputCapabilities.lacking(required, this.capabilities)
      return lacking === undefined ? Effect.void : this.halt({ _tag: "Refuse", error: InputCapabilities.refusal(lacking) })
    })
  }

  getState(key: string): JsonValue | undefined {
    return this.statesMap === undefined ? own(this.carried.states, key) : this.statesMap.get(key)
  }

  setState(key: string, value: JsonValue | undefined): void {
    if (value === undefined) this.states.delete(key)
    else this.states.set(key, value)
  }

  answers(): Readonly<Record<string, JsonValue>> {
    return this.consumedMap === undefined ? {} : Object.fromEntries(this.consumedMap)
  }

  get invalidState(): Effect.Effect<never> {
    return Effect.suspend(() => this.halt({ _tag: "Refuse", error: RequestState.invalid() }))
  }
}

const empty: RequestState.Payload = { answers: {}, states: {} }

/**
 * Runs one round for a principal (its id binds the sealed state); a traced request's `span` gets
 * the round's number (`mcp.mrtr.round`) once a presented state is verified. `body` receives the `provide` to
 * use for the handler's effect: it adds the {@link McpInput} session (with the request's other
 * services, through `provide`) and turns a returned `InputRequired` into the end of the round.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = <A>(
  keyring: Keyring["Service"],
  request: Request,
  meta: RequestMeta,
  principal: string,
  provide: ProvideWith,
  body: (provide: Provide) => Effect.Effect<A, McpError>,
  span?: Tracer.Span | undefined
): Effect.Effect<Outcome<A>, McpError> => {
  const envelope = envelopeOf(request.params)
  if (envelope instanceof InvalidParams) return Effect.fail(envelope)
  // A first round's session is made when its handler runs an effect (one that completed asked nothing).
  if (envelope === firstRound) return runSession(keyring, request, principal, meta, undefined, provide, body)
  const binding: RequestState.Binding = { method: request.method, params: request.params, principal }
  const responsesBytes = request.params["inputResponses"] === undefined ? 0 : jsonBytes(envelope.responses)
  if (responsesBytes > RequestState.maxInputResponsesBytes) return Effect.fail(tooLarge())
  if (envelope.requestState === undefined) return runSession(keyring, request, principal, meta, new RoundSession(envelope, empty, meta), provide, body)
  const token = envelope.requestState
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const opened = RequestState.open(keyring, binding, token, now)
    if (opened instanceof InvalidParams) return Effect.fail(opened)
    // The answers carried from earlier rounds are sealed again with the new ones.
    if (responsesBytes > 0 && responsesBytes + jsonBytes(opened.answers) > RequestState.maxInputResponsesBytes) return Effect.fail(tooLarge())
    const session = new RoundSession(envelope, opened, meta)
    span?.attribute(Semconv.mrtrRound, session.round)
    return runSession(keyring, request, principal, meta, session, provide, body)
  })
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(RequestState.canonicalJson(value), "utf8")

/** Input responses a sealed state could not carry: refused before the handler, not a 500 after it. */
const tooLarge = (): InvalidParams => new InvalidParams({
  message: `Invalid params: inputResponses (with the answers carried by requestState) exceed ${RequestState.maxInputResponsesBytes} bytes`,
  data: { field: "inputResponses", limit: RequestState.maxInputResponsesBytes }
})

const runSession = <A>(
  keyring: Keyring["Service"],
  request: Request,
  principal: string,
  meta: RequestMeta,
  presented: RoundSession | undefined,
  provide: ProvideWith,
  body: (provide: Provide) => Effect.Effect<A, McpError>
): Effect.Effect<Outcome<A>, McpError> => {
  let session = presented
  const withInput: Provide = (effect) => {
    // A handler that completed with a value, or failed, needs no services and asked nothing.
    if (Immediate.isDone(effect) && (Exit.isFailure(effect) || !InputRequired.is(effect.value))) return effect
    const current = session ??= new RoundSession(firstRound, empty, meta)
    return provide(Effect.flatMap(effect, (value) => InputRequired.is(value) ? current.returned(value) : Effect.succeed(value)), current)
  }
  return Immediate.onExit(body(withInput), (exit): Effect.Effect<Outcome<A>, McpError> => {
    const stopped = session?.stop
    if (stopped === undefined || (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause))) {
      return Exit.isSuccess(exit) ? Exit.succeed({ _tag: "Complete", value: exit.value }) : Effect.failCause(exit.cause)
    }
    return inputRequired(keyring, { method: request.method, params: request.params, principal }, meta, session!, stopped)
  })
}

/** The end of a round that stopped: its refusal, or the `input_required` result with a sealed state. */
const inputRequired = <A>(
  keyring: Keyring["Service"],
  binding: RequestState.Binding,
  meta: RequestMeta,
  session: RoundSession,
  stopped: Stop
): Effect.Effect<Outcome<A>, McpError> =>
  Effect.gen(function*() {
    if (stopped._tag === "Refuse") return yield* Effect.fail(stopped.error)
    let inputRequests: Record<string, InputRequest> = Object.fromEntries(session.pending)
    let raw: JsonValue | undefined
    if (stopped._tag === "Returned") {
      inputRequests = { ...stopped.value.inputRequests }
      raw = stopped.value.requestState
      const entries = Object.entries(inputRequests)
      if (entries.length > 0) {
        const { requestProblem } = yield* requestProblems.load
        for (const [key, input] of entries) {
          const problem = requestProblem(input)
          if (problem !== undefined) return yield* defect(`InputRequired request "${key}": ${problem}`)
        }
      }
      if (Object.keys(inputRequests).length === 0 && raw === undefined) {
        return yield* defect("InputRequired needs inputRequests or requestState")
      }
      const lacking = Object.values(inputRequests).flatMap((input) => {
        const fragment = InputCapabilities.missing(input, meta.clientCapabilities)
        return fragment === undefined ? [] : [fragment]
      })
      if (lacking.length > 0) return yield* InputCapabilities.refusal(InputCapabilities.merge(lacking))
    }
    const payload: RequestState.Payload = {
      answers: Object.fromEntries(session.consumed),
      states: Object.fromEntries(session.states),
      ...(raw === undefined ? {} : { raw }),
      round: session.round
    }
    const sealed = RequestState.seal(keyring, binding, payload, yield* Clock.currentTimeMillis)
    if (typeof sealed !== "string") {
      return yield* Effect.logError(`Sealed request state of ${binding.method} exceeds ${RequestState.maxTokenBytes} bytes`).pipe(
        Effect.andThen(Effect.fail(sealed))
      )
    }
    const result: Record<string, unknown> = { resultType: "input_required" }
    if (Object.keys(inputRequests).length > 0) result["inputRequests"] = inputRequests
    result["requestState"] = sealed
    return { _tag: "InputRequired", result } satisfies Outcome<A>
  })
