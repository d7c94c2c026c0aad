/**
 * The MRTR session service (`McpInput`) and the `Ask` a handler yields, published by `Input`: the
 * runtime provides the session to every request that may ask for input, and needs only this to do
 * it. The rest of `Input` (forms, elicitation, sampling and their checks) is loaded by a server
 * whose handlers use it (scripts/bundle-dist.ts keeps it out of the eager chunk).
 *
 * @internal
 */
import { Context, Effect, Effectable, Option, type Result } from "effect"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import type { Fragment } from "../InputCapabilities.ts"

/**
 * A validated answer, and the JSON carried to later rounds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Answer<A> {
  readonly value: A
  readonly carry: JsonValue
}

/**
 * What decoding a response gives: the answer, or the reason the response is refused.
 *
 * @category models
 * @since 0.1.0
 */
export type Decoded<A> = Result.Result<Answer<A>, string>

/**
 * What the runtime offers a handler of a request that may answer `input_required`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Session {
  /** Answers for every ask, or stops the handler (missing input, refusal). */
  readonly ask: (asks: ReadonlyArray<Ask<unknown>>) => Effect.Effect<ReadonlyArray<unknown>>
  /** Whether the request's client capabilities allow sending this input request. */
  readonly supports: (request: InputRequest) => boolean
  /** Stops with -32021 unless the client declared this fragment. */
  readonly requireCapabilities: (required: Fragment) => Effect.Effect<void>
  readonly getState: (key: string) => JsonValue | undefined
  readonly setState: (key: string, value: JsonValue | undefined) => void
  /** Stops with the -32602 of an invalid request state. */
  readonly invalidState: Effect.Effect<never>
  /** The `inputResponses` of this request, shape-checked. */
  readonly responses: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** The state a low-level `InputRequired` stored in the previous round. */
  readonly requestState: JsonValue | undefined
  /** The answers consumed so far, by key (carried from earlier rounds, or this request's), as carried. */
  readonly answers: () => Readonly<Record<string, JsonValue>>
}

/**
 * The MRTR session of the current request, provided by the runtime to `tools/call`,
 * `resources/read` and `prompts/get` handlers.
 *
 * @category services
 * @since 0.1.0
 */
export class McpInput extends Context.Service<McpInput, Session>()("@snodo/core/McpInput") {}

export const session: Effect.Effect<Session, never, McpInput> = Effect.serviceOption(McpInput).pipe(
  Effect.flatMap((found) =>
    Option.isSome(found)
      ? Effect.succeed(found.value)
      : Effect.die(new Error("Input is only available in tools/call, resources/read and prompts/get handlers"))
  )
) as Effect.Effect<Session, never, McpInput>

/**
 * One input a handler asks for. It is an Effect: yielding it returns the answer or ends the round.
 *
 * @category models
 * @since 0.1.0
 */
export class Ask<A> extends Effectable.Class<A, never, McpInput> {
  readonly key: string
  readonly request: InputRequest
  readonly decode: (response: unknown) => Decoded<A>
  constructor(key: string, request: InputRequest, decode: (response: unknown) => Decoded<A>) {
    super()
    if (key.length === 0 || key.length > 256) throw new Error("An input key is 1 to 256 characters")
    this.key = key
    this.request = request
    this.decode = decode
  }
  asEffect(): Effect.Effect<A, never, McpInput> {
    return Effect.flatMap(session, (current) => current.ask([this as Ask<unknown>])).pipe(
      Effect.map((values) => values[0] as A)
    )
  }
}
