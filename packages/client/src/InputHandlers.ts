/**
 * How the application answers a server's requests for input: elicitation (form and URL),
 * sampling and roots, as Effects given once as a Layer. The same handlers answer
 * `input_required` rounds (2026-07-28), the server's own requests (2025-11-25) and a task's
 * input (`tasks/update`). The client declares exactly the capabilities it has handlers for; a
 * request for input it has no handler for fails with {@link MissingHandler}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { InputHandlers } from "@snodo/client"
 *
 * const Handlers = InputHandlers.layer({
 *   elicit: (request) => Effect.succeed({ action: "accept", content: { confirm: true } }),
 *   roots: Effect.succeed([{ uri: "file:///workspace", name: "workspace" }])
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Context, Effect, Layer, Schema } from "effect"
import * as Elicitation from "@snodo/protocol/wire/Elicitation"
import type * as Roots from "@snodo/protocol/wire/Roots"
import * as Sampling from "@snodo/protocol/wire/Sampling"
import { InvalidResult, MissingHandler } from "./McpClientError.ts"

/**
 * An elicitation request as the server sent it (form or URL mode; extra fields such as
 * `elicitationId` kept).
 *
 * @category models
 * @since 0.1.0
 */
export type ElicitRequest = Elicitation.ElicitRequestParams & Readonly<Record<string, unknown>>

/**
 * A sampling request as the server sent it.
 *
 * @category models
 * @since 0.1.0
 */
export type SampleRequest = Sampling.CreateMessageRequestParams & Readonly<Record<string, unknown>>

/**
 * The application's handlers; any may be absent.
 *
 * @category models
 * @since 0.1.0
 */
export interface Handlers {
  /** Answers `elicitation/create` (both modes unless `elicitModes` says otherwise). */
  readonly elicit?: (request: ElicitRequest) => Effect.Effect<Elicitation.ElicitResult>
  /** The elicitation modes the `elicit` handler supports (default both). */
  readonly elicitModes?: ReadonlyArray<"form" | "url">
  /**
   * When the `elicit` handler accepts a form, fill the fields it left out with the `default`
   * each property of the requested schema declares (SEP-1034), as a form shown to a user starts
   * filled with them (default false).
   */
  readonly applyDefaults?: boolean
  /** Answers `sampling/createMessage`. */
  readonly sample?: (request: SampleRequest) => Effect.Effect<Sampling.CreateMessageResult>
  /** Answers `roots/list`. */
  readonly roots?: Effect.Effect<ReadonlyArray<Roots.Root>>
}

/**
 * The handlers in context; none by default.
 *
 * @category services
 * @since 0.1.0
 */
export const InputHandlers: Context.Reference<Handlers> = Context.Reference<Handlers>("@snodo/client/InputHandlers", {
  defaultValue: () => ({})
})

/**
 * Provides handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (handlers: Handlers): Layer.Layer<never> => Layer.succeed(InputHandlers, handlers)

/**
 * The client capabilities the handlers give.
 *
 * @category combinators
 * @since 0.1.0
 */
export const capabilities = (handlers: Handlers): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  if (handlers.elicit !== undefined) {
    const modes = handlers.elicitModes ?? ["form", "url"]
    out["elicitation"] = Object.fromEntries(modes.map((mode) => [mode, {}]))
  }
  if (handlers.sample !== undefined) out["sampling"] = {}
  if (handlers.roots !== undefined) out["roots"] = {}
  return out
}

/**
 * A form's content with each field it leaves out set to the `default` its property declares in
 * the requested schema (SEP-1034); fields given are kept.
 *
 * @example
 * ```ts
 * import { InputHandlers } from "@snodo/client"
 *
 * InputHandlers.withDefaults({ type: "object", properties: { age: { type: "integer", default: 30 } } }, {})
 * // { age: 30 }
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const withDefaults = <A extends Readonly<Record<string, unknown>>>(requestedSchema: Readonly<Record<string, unknown>>, content: A): A => {
  const properties = requestedSchema["properties"]
  if (typeof properties !== "object" || properties === null) return content
  const defaults: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property === "object" && property !== null && "default" in property && !(name in content)) defaults[name] = property.default
  }
  return Object.keys(defaults).length === 0 ? content : { ...defaults, ...content }
}

const isElicit = Schema.is(Elicitation.ElicitRequestParams)
const isSample = Schema.is(Sampling.CreateMessageRequestParams)

const missing = (method: string, what: string) =>
  new MissingHandler({ method, message: `The server asked for ${what} (${method}) and the application gave no handler for it` })

/**
 * Answers one request for input with the handlers: the result to send back.
 *
 * @category combinators
 * @since 0.1.0
 */
export const answer = (
  handlers: Handlers,
  method: string,
  params: Readonly<Record<string, unknown>>
): Effect.Effect<Readonly<Record<string, unknown>>, MissingHandler | InvalidResult> => {
  switch (method) {
    case Methods.ElicitationCreate.name: {
      const mode = params["mode"] === "url" ? "url" : "form"
      if (handlers.elicit === undefined || !(handlers.elicitModes ?? ["form", "url"]).includes(mode)) {
        return Effect.fail(missing(method, `${mode} elicitation`))
      }
      if (!isElicit(params)) return Effect.fail(new InvalidResult({ method, message: "The server's elicitation request is malformed" }))
      const answered = handlers.elicit(params)
      if (handlers.applyDefaults !== true || params.mode === "url") return answered
      const schema = params["requestedSchema"]
      return Effect.map(answered, (result) =>
        result.action === "accept" && typeof schema === "object" && schema !== null
          ? { ...result, content: withDefaults(schema as Readonly<Record<string, unknown>>, result.content ?? {}) }
          : result)
    }
    case Methods.SamplingCreateMessage.name: {
      if (handlers.sample === undefined) return Effect.fail(missing(method, "sampling"))
      if (!isSample(params)) return Effect.fail(new InvalidResult({ method, message: "The server's sampling request is malformed" }))
      return handlers.sample(params)
    }
    case Methods.RootsList.name:
      return handlers.roots === undefined ? Effect.fail(missing(method, "roots")) : Effect.map(handlers.roots, (roots) => ({ roots }))
    default:
      return Effect.fail(missing(method, "input of an unknown kind"))
  }
}
