/**
 * A route: everything the server knows about one method, as one value.
 *
 * The request pipeline (see `runtime/ServerRuntime`) looks a method up in the route table, decodes
 * its params with the route's wire schema (compiled once), resolves what the request is about (a
 * tool, a resource, a prompt), runs the invocation check on that component, and runs the route,
 * in the executor when the route is `bounded` and as an MRTR round when it `mayAskInput`. The
 * dialect that admitted the request shapes what the route replies.
 *
 * A route is made from the method's entry in `@snodo/protocol`'s method table (`Methods`): its
 * name, params schema, capability, cache hints, stream and `Mcp-Name` rules come from there, so
 * transports asking a route (`streams`, `nameParam`) read the one description of the method.
 *
 * An extension adds routes of its own (see `extension/Extension`): they exist only for requests
 * that negotiated the extension (or, as `openRoutes`, for every request of a dialect that takes
 * extensions).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Route from "@snodo/core/extension/Route"
 * import * as Method from "@snodo/protocol/methods/Method"
 *
 * // A method of one's own, described once, and the route that answers it with { pong: true }
 * const ExamplePing = Method.request({
 *   name: "example/ping",
 *   params: Schema.Struct({}),
 *   result: Schema.Struct({ pong: Schema.Boolean })
 * })
 * const Ping = Route.make({
 *   method: ExamplePing,
 *   run: () => Effect.succeed(Route.result({ pong: true }))
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Schema, SchemaIssue } from "effect"
import type * as Method from "@snodo/protocol/methods/Method"
import type { Catalog } from "../catalog/Catalog.ts"
import type * as Pagination from "../catalog/Pagination.ts"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { InvalidParams, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as PlainCodec from "../pipeline/internal/PlainCodec.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"
import type * as Authorization from "../runtime/Authorization.ts"
import type { Executor } from "../runtime/Executor.ts"
import type * as Listen from "../runtime/Listen.ts"
import type { Principal } from "../runtime/Principal.ts"
import type * as RequestServices from "../runtime/internal/RequestServices.ts"
import type { Observers } from "../runtime/internal/Observers.ts"
import type { RequestContext } from "../runtime/RequestContext.ts"
import type { Settings } from "../runtime/internal/ServerSettings.ts"
import type { Registry, Revision } from "./Revision.ts"
import type { SubscriptionHub } from "../runtime/SubscriptionHub.ts"

/**
 * A server capability a method belongs to: without it advertised (or, for `subscriptions`, without
 * a `SubscriptionHub`), the method does not exist and is answered -32601 (the method table's).
 *
 * @category models
 * @since 0.1.0
 */
export type Capability = Method.Capability

/**
 * What a route answers with: a result (before shaping) and its cache hint, or, for a stream the
 * server ended, also the frame that ends it on a shared channel (`streamEnd`, see runtime/Listen).
 *
 * @category models
 * @since 0.1.0
 */
export type Reply =
  | {
    readonly _tag: "Result"
    readonly result: Readonly<Record<string, unknown>>
    /** The hint of a complete result; `undefined` leaves the method's default (or none). */
    readonly cache?: CacheHint | undefined
    /** A member of the result already serialized (list pages), spliced in by the encoder. */
    readonly encoded?: { readonly key: string; readonly json: string } | undefined
    readonly streamEnd?: string | undefined
  }
  | { readonly _tag: "Error"; readonly error: McpError; readonly streamEnd: string }

/**
 * A result reply.
 *
 * @category combinators
 * @since 0.1.0
 */
export const result = (value: Readonly<Record<string, unknown>>, cache?: CacheHint): Reply =>
  cache === undefined ? { _tag: "Result", result: value } : { _tag: "Result", result: value, cache }

/**
 * The empty acknowledgement (`{ resultType: "complete" }` once shaped).
 *
 * @category constants
 * @since 0.1.0
 */
export const acknowledged: Reply = { _tag: "Result", result: {} }

/**
 * What every request of one server shares: built once with the runtime.
 *
 * @category models
 * @since 0.1.0
 */
export interface Environment {
  readonly settings: Settings
  readonly catalog: Catalog
  readonly executor: Executor["Service"]
  /** The four lists as one principal may see them (the authorization policy filters them). */
  readonly views: (
    kind: "tools" | "resources" | "templates" | "prompts",
    request: Authorization.RequestInfo
  ) => Pagination.PagedList<Readonly<Record<string, unknown>>>
  /** The source of listen changes, as the policy lets each principal see them; `undefined` without a hub. */
  readonly hub: SubscriptionHub["Service"] | undefined
  /** Enabled protocol versions, preferred first. */
  readonly supportedVersions: ReadonlyArray<string>
  /** The enabled dialects (to shape a result outside a request, as a task does). */
  readonly dialects: Registry<Revision>
  /** The request services of a handler, for running one outside a transport (a task's work). */
  readonly provider: RequestServices.Provider
  /** What `subscriptions/listen` honours, and the streams of transports that bring none of their own. */
  readonly listen: {
    readonly support: Listen.Support
    readonly filters: ReadonlyArray<Listen.ExtensionFilter>
    readonly streams: Listen.Streams
  }
  /** The runtime's spans, metrics and events, when the application observes any. */
  readonly observers?: Observers | undefined
}

/**
 * Gives a handler's effect its request services (`McpRequest`, `Progress`, `McpLog`, and on routes
 * that may ask for input the round's `McpInput`), and ends the round when it returns `InputRequired`.
 *
 * @category models
 * @since 0.1.0
 */
export type Provide = <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>

/**
 * One request as a route sees it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Call<P = unknown> {
  readonly request: Envelope.Request
  /** The params, decoded with the route's schema. */
  readonly params: P
  readonly meta: RequestMeta
  readonly dialect: Revision
  readonly principal: Principal["Service"]
  readonly transport: RequestContext
  readonly environment: Environment
  readonly provide: Provide
  /** Whether this request named an extension in its `clientCapabilities.extensions`. */
  readonly negotiated: (extension: string) => boolean
}

/**
 * The component a request invokes, for the invocation check: refused (or concealed as `notFound`)
 * before any handler code runs.
 *
 * @category models
 * @since 0.1.0
 */
interface Guard {
  readonly component: Authorization.Component
  readonly notFound: () => McpError
}

/**
 * A request param an HTTP client mirrors in a header of its own (`Mcp-Param-<Name>` for a tool's
 * `x-mcp-header` parameters): the transport refuses a request whose header and param disagree.
 *
 * @category models
 * @since 0.1.0
 */
export interface Mirror {
  /** The header as written (`Mcp-Param-Region`). */
  readonly header: string
  /** The header in lower case (`mcp-param-region`). */
  readonly lower: string
  /** Where the value is in the body, for the refusal (`params.arguments.region`). */
  readonly body: string
  /** The param's value; `undefined` (absent or `null`) means the header must be absent too. */
  readonly value: unknown
}

/**
 * A method and how to serve it. `T` is what `resolve` finds (the tool, the resource…).
 *
 * Methods are written in method syntax so that a table can hold routes of any params and targets.
 *
 * @category models
 * @since 0.1.0
 */
export interface Route<P = unknown, T = P> {
  /** The method's wire name (the table's `name`). */
  readonly method: string
  /** The method's entry in the method table. */
  readonly definition: Method.Request<P, unknown>
  readonly capability: Capability | undefined
  /** The params' wire schema; decoded before anything else (a failure is -32602 naming the path). */
  readonly params: Schema.Decoder<P>
  /** Complete results carry `ttlMs`/`cacheScope` (the method's hint from the server options). */
  readonly cacheable: boolean
  /** Runs as an MRTR round: it may answer `input_required`, and handlers may use `Input`. */
  readonly mayAskInput: boolean
  /** Runs in the bounded executor (handlers of the application), after the invocation check. */
  readonly bounded: boolean
  /** Answers with a long-lived stream (HTTP: always `text/event-stream`, no deadline). */
  readonly streams: boolean
  /** The param an HTTP client mirrors in the `Mcp-Name` header (`name`, `uri`, `taskId`). */
  readonly nameParam: string | undefined
  /** Other params mirrored in headers, read from the raw params (before decoding). */
  mirrors(params: Readonly<Record<string, unknown>>, catalog: Catalog): ReadonlyArray<Mirror>
  /** Finds what the request is about, synchronously: the target, or the error to answer with. */
  resolve(params: P, environment: Environment): T | McpError
  /** The component to check before running, if the method invokes one. */
  guard(target: T): Guard | undefined
  run(call: Call<P>, target: T): Effect.Effect<Reply, McpError>
}

/**
 * A route of any params and target.
 *
 * @category models
 * @since 0.1.0
 */
export type Any = Route<unknown, unknown>

/**
 * What {@link make} needs; everything else has a default.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<P, T> {
  /** The method's entry in the method table: name, params, capability, cache, stream and header rules. */
  readonly method: Method.Request<P, unknown>
  /** Params decoded with a narrower schema than the table's (default: the table's). */
  readonly params?: Schema.Decoder<P>
  /** Runs as an MRTR round (default: the table's `mayAskInput`). */
  readonly mayAskInput?: boolean
  readonly bounded?: boolean
  readonly mirrors?: (params: Readonly<Record<string, unknown>>, catalog: Catalog) => ReadonlyArray<Mirror>
  readonly resolve?: (params: P, environment: Environment) => T | McpError
  readonly guard?: (target: T) => Guard | undefined
  readonly run: (call: Call<P>, target: T) => Effect.Effect<Reply, McpError>
}

const noGuard = (): undefined => undefined
const noMirrors = (): ReadonlyArray<Mirror> => []

/**
 * Defines a route for a method of the table. Without `resolve` the target is the decoded params.
 *
 * @category constructors
 * @since 0.1.0
 */
export function make<P, T>(options: Options<P, T> & { readonly resolve: (params: P, environment: Environment) => T | McpError }): Route<P, T>
export function make<P>(options: Options<P, P>): Route<P, P>
export function make<P, T>(options: Options<P, T>): Route<P, T> {
  const resolve = options.resolve ?? ((params: P) => params as unknown as T)
  const method = options.method
  return {
    method: method.name,
    definition: method,
    capability: method.capability,
    params: options.params ?? method.params,
    cacheable: method.cacheable,
    mayAskInput: options.mayAskInput ?? method.mayAskInput,
    bounded: options.bounded ?? false,
    streams: method.streams,
    nameParam: method.nameParam,
    mirrors: options.mirrors ?? noMirrors,
    resolve: (params, environment) => resolve(params, environment),
    guard: options.guard ?? noGuard,
    run: (call, target) => options.run(call, target)
  }
}

const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment, index) =>
    typeof segment === "number" ? `[${segment}]` : index === 0 ? String(segment) : `.${String(segment)}`
  ).join("")

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * The -32602 for params that do not match their schema: the first issue's path and rule, never
 * the value.
 *
 * @category combinators
 * @since 0.1.0
 */
const invalidParams = (issue: SchemaIssue.Issue): InvalidParams => {
  const first = formatter(issue).issues[0]
  if (first === undefined) return new InvalidParams({ message: "Invalid params" })
  const path = (first.path ?? []).map((segment) =>
    typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
  )
  return new InvalidParams({
    message: path.length === 0 ? `Invalid params: ${first.message}` : `Invalid params: ${pathOf(path)}: ${first.message}`
  })
}

/**
 * A route's params decoder, compiled once: the decoded params or the -32602 to answer with.
 *
 * @category combinators
 * @since 0.1.0
 */
export const decoderOf = <P>(route: Route<P, unknown>): (params: unknown) => P | InvalidParams => {
  const decode = Schema.decodeUnknownExit(route.params)
  // Params that are what they should be are copied by a plain function (pipeline/internal/PlainCodec);
  // the schema's parser decides the rest, and words what is wrong.
  const plain = PlainCodec.compile(route.params.ast, "decode")
  return (params) => {
    if (plain !== undefined) {
      const copied = plain(params)
      if (copied !== PlainCodec.unsure) return copied as P
    }
    const exit = decode(params)
    if (Exit.isSuccess(exit)) return exit.value
    const reason = exit.cause.reasons.find((candidate) => candidate._tag === "Fail")
    return reason === undefined ? new InvalidParams({ message: "Invalid params" }) : invalidParams(reason.error.issue)
  }
}
