/**
 * A method of the protocol, described once: what every side (the server's route, the HTTP
 * boundary's header checks, instrumentation, the client) knows about a request or a notification
 * before any code serves it.
 *
 * A request says who sends it, in which eras and extension it exists, the capability it belongs
 * to, its params and result schemas, and its HTTP rules: the param `Mcp-Name` mirrors, whether a
 * tool's `x-mcp-header` parameters are mirrored, whether it answers with a long-lived stream,
 * whether its result carries cache hints. A notification says who sends it, which cached results
 * it makes stale and which `subscriptions/listen` filter key asks for it.
 *
 * The table of every method snodo speaks is {@link Methods}; a server's route is made from an
 * entry (`Route.make({ method: Methods.ToolsCall, … })`) and the client sends by entry.
 *
 * @example
 * ```ts
 * import * as Method from "@snodo/protocol/methods/Method"
 * import * as Methods from "@snodo/protocol/methods/Methods"
 *
 * Methods.ToolsCall.nameParam // "name": an HTTP client sends params.name as Mcp-Name
 * Method.nameOf(Methods.TasksGet, { taskId: "t1" }) // "t1"
 * ```
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"
import { isObject } from "../wire/internal/IsObject.ts"

/**
 * A protocol revision a method exists in.
 *
 * @category models
 * @since 0.1.0
 */
export type Era = "2026-07-28" | "2025-11-25"

/**
 * Both revisions snodo speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const bothEras: ReadonlyArray<Era> = ["2026-07-28", "2025-11-25"]

/**
 * Who sends a message: the client (to the server), the server (to the client), or either.
 *
 * @category models
 * @since 0.1.0
 */
export type Sender = "client" | "server" | "either"

/**
 * A server capability a method belongs to: without it advertised (or, for `subscriptions`,
 * without a subscription hub), the method does not exist and is answered -32601.
 *
 * @category models
 * @since 0.1.0
 */
export type Capability = "tools" | "resources" | "prompts" | "completions" | "subscriptions" | "logging"

/**
 * A request: sent with an id, answered with a result or an error.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request<P = unknown, R = unknown> {
  readonly _tag: "Request"
  /** The method as written on the wire (`tools/call`). */
  readonly name: string
  readonly sender: Sender
  readonly eras: ReadonlyArray<Era>
  /** The extension the method belongs to (`io.modelcontextprotocol/tasks`), if any. */
  readonly extension: string | undefined
  readonly capability: Capability | undefined
  /** The params' wire schema. */
  readonly params: Schema.Decoder<P>
  /**
   * The complete result's wire schema, as 2026-07-28 writes it (an initialize-era result carries
   * no `resultType` or cache hints: a client checks it as a complete result that may not be cached).
   */
  readonly result: Schema.Decoder<R>
  /** The param an HTTP client mirrors in the `Mcp-Name` header (`name`, `uri`, `taskId`). */
  readonly nameParam: string | undefined
  /** The param naming the component the request is about (a tool, prompt or resource), for spans and logs. */
  readonly subject: string | undefined
  /** A `tools/call`: the tool's `x-mcp-header` parameters are mirrored in `Mcp-Param-*` headers. */
  readonly mirrorsArguments: boolean
  /** Answers with a long-lived stream (HTTP: always `text/event-stream`, no request deadline). */
  readonly streams: boolean
  /** Complete results carry `ttlMs`/`cacheScope` (2026-07-28). */
  readonly cacheable: boolean
  /** May answer `input_required` (a multi-round request, 2026-07-28). */
  readonly mayAskInput: boolean
  /** May answer `resultType: "task"` when the Tasks extension is negotiated. */
  readonly mayCreateTask: boolean
}

/**
 * A notification: sent without an id, never answered.
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification<P = unknown> {
  readonly _tag: "Notification"
  readonly name: string
  readonly sender: Sender
  readonly eras: ReadonlyArray<Era>
  readonly extension: string | undefined
  readonly params: Schema.Decoder<P>
  /** The requests whose cached results it makes stale (every key starting with one of them). */
  readonly invalidates: ReadonlyArray<string>
  /** The `subscriptions/listen` filter key that asks the server for it (`toolsListChanged`). */
  readonly listenKey: string | undefined
  /**
   * The server capability flag that promises it (`["tools", "listChanged"]`): what an
   * initialize-era server declares, and what a listen stream may honour.
   */
  readonly declaredBy: readonly [capability: string, flag: string] | undefined
}

/**
 * A request of any params and result.
 *
 * @category models
 * @since 0.1.0
 */
export type AnyRequest = Request<unknown, unknown>

/**
 * A notification of any params.
 *
 * @category models
 * @since 0.1.0
 */
export type AnyNotification = Notification<unknown>

/**
 * A request or a notification of any params and result.
 *
 * @category models
 * @since 0.1.0
 */
export type Any = AnyRequest | AnyNotification

/**
 * @category models
 * @since 0.1.0
 */
export interface RequestOptions<P, R> {
  readonly name: string
  readonly sender?: Sender
  readonly eras?: ReadonlyArray<Era>
  readonly extension?: string
  readonly capability?: Capability
  readonly params: Schema.Decoder<P>
  readonly result: Schema.Decoder<R>
  readonly nameParam?: string
  readonly subject?: string
  readonly mirrorsArguments?: boolean
  readonly streams?: boolean
  readonly cacheable?: boolean
  readonly mayAskInput?: boolean
  readonly mayCreateTask?: boolean
}

/**
 * Describes a request. Defaults: sent by the client, in 2026-07-28 only, no HTTP mirrors, no
 * stream, no cache hints, no input rounds.
 *
 * @category constructors
 * @since 0.1.0
 */
export const request = <P, R>(options: RequestOptions<P, R>): Request<P, R> => ({
  _tag: "Request",
  name: options.name,
  sender: options.sender ?? "client",
  eras: options.eras ?? ["2026-07-28"],
  extension: options.extension,
  capability: options.capability,
  params: options.params,
  result: options.result,
  nameParam: options.nameParam,
  subject: options.subject,
  mirrorsArguments: options.mirrorsArguments ?? false,
  streams: options.streams ?? false,
  cacheable: options.cacheable ?? false,
  mayAskInput: options.mayAskInput ?? false,
  mayCreateTask: options.mayCreateTask ?? false
})

/**
 * @category models
 * @since 0.1.0
 */
export interface NotificationOptions<P> {
  readonly name: string
  readonly sender?: Sender
  readonly eras?: ReadonlyArray<Era>
  readonly extension?: string
  readonly params: Schema.Decoder<P>
  readonly invalidates?: ReadonlyArray<string>
  readonly listenKey?: string
  readonly declaredBy?: readonly [capability: string, flag: string]
}

/**
 * Describes a notification. Defaults: sent by the server, in both eras.
 *
 * @category constructors
 * @since 0.1.0
 */
export const notification = <P>(options: NotificationOptions<P>): Notification<P> => ({
  _tag: "Notification",
  name: options.name,
  sender: options.sender ?? "server",
  eras: options.eras ?? bothEras,
  extension: options.extension,
  params: options.params,
  invalidates: options.invalidates ?? [],
  listenKey: options.listenKey,
  declaredBy: options.declaredBy
})

/**
 * The value a request's `Mcp-Name` header carries: its `nameParam`'s value when it is a string.
 *
 * @category combinators
 * @since 0.1.0
 */
export const nameOf = (method: AnyRequest, params: unknown): string | undefined => {
  if (method.nameParam === undefined || !isObject(params)) return undefined
  const value = (params as Readonly<Record<string, unknown>>)[method.nameParam]
  return typeof value === "string" ? value : undefined
}

/**
 * Whether the method exists in an era.
 *
 * @category predicates
 * @since 0.1.0
 */
export const inEra = (method: Any, era: Era): boolean => method.eras.includes(era)
