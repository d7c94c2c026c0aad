/**
 * The running server: the service every transport talks to, and the request pipeline.
 *
 * `handle` takes one decoded request and the transport's request context and produces exactly one
 * encoded response, through these steps (each a module of its own):
 *
 * 1. **look up** the method in the route table (routes/RouteTable): unknown → -32601;
 * 2. **admit** the request's `_meta` with the dialect of its version (pipeline/Admission), or,
 *    when it names none, from the transport's initialize-era session (runtime/Session);
 * 3. **negotiate**: an extension's route needs the extension in this request's capabilities (-32021);
 * 4. **decode** the params with the route's wire schema (-32602 naming the path);
 * 5. **resolve** what the request is about: the tool, resource, prompt (routes/*);
 * 6. **authorize** the invocation of that component (runtime/Authorization);
 * 7. **run** the route: as an MRTR round when it may ask for input (internal/Round; an
 *    initialize-era dialect sends the asks to the client instead, internal/ClientInput), in the bounded
 *    executor when it runs the application's handlers (runtime/Executor), with the request's
 *    services (runtime/RequestServices);
 * 8. **shape** the result as the dialect says, and **encode** it.
 *
 * It never fails: protocol errors become error responses and defects become a generic -32603 (the
 * cause is logged on stderr, never written). Interrupting the returned Effect is cancellation: the
 * handler's fiber is interrupted, its finalizers run, nothing is written.
 *
 * @since 0.1.0
 */
import { Cause, Context, Effect, Exit } from "effect"
import type { Catalog, CatalogError } from "../catalog/Catalog.ts"
import { ConfigurationError } from "../pipeline/ConfigurationError.ts"
import * as LazyModule from "../pipeline/internal/LazyModule.ts"
import * as Extension from "../routes/Extension.ts"
import * as Instrumentation from "./Instrumentation.ts"
import * as Round from "./Round.ts"
import type { Keyring } from "../mrtr/Keyring.ts"
import { generate as generateKeyring } from "../mrtr/Keyring.ts"
import { admit, type Admitted } from "../routes/internal/Admission.ts"
import type { Dialect } from "../routes/Dialect.ts"
import type { Registry } from "../routes/Revision.ts"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { internalErrorOfDefect, isMcpError, type McpError, toWire } from "@snodo/protocol/jsonrpc/McpError"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import { type CacheHint, defaultCacheHint } from "../pipeline/Shaping.ts"
import type * as Route from "../routes/Route.ts"
import * as RouteTable from "../routes/RouteTable.ts"
import * as Authorization from "../runtime/Authorization.ts"
import { checkInvocation } from "../runtime/internal/Invocation.ts"
import * as CatalogViews from "../runtime/internal/CatalogViews.ts"
import type { Component as ExecutorComponent, Executor } from "../runtime/Executor.ts"
import * as Listen from "../runtime/Listen.ts"
import { listenStream } from "../runtime/internal/ListenStreamModule.ts"
import { fromContext, type Principal } from "../runtime/Principal.ts"
import * as RequestServices from "../runtime/internal/RequestServices.ts"
import type { RequestContext } from "../runtime/RequestContext.ts"
import type { Settings } from "../runtime/internal/ServerSettings.ts"
import type { Outcome, Refusal } from "./Outcome.ts"

export type { RequestContext } from "../runtime/RequestContext.ts"
export type { Settings } from "../runtime/internal/ServerSettings.ts"
export type { Outcome, Refusal } from "./Outcome.ts"
import type { SubscriptionHub } from "../runtime/SubscriptionHub.ts"
import type { Session } from "../runtime/Session.ts"

/**
 * @category services
 * @since 0.1.0
 */
export class ServerRuntime extends Context.Service<ServerRuntime, {
  readonly settings: Settings
  readonly catalog: Catalog
  readonly dialects: Registry<Dialect>
  /** Every method served, and what each is (transports ask it: streams? `Mcp-Name`?). */
  readonly routes: RouteTable.RouteTable
  /**
   * Answers one request (see the module's steps). `resolved` is the request's method as the
   * transport already looked it up in `routes` (`routes.resolve(request.method)`), so that it is
   * not looked up again. When the context names the `principal`, the steps run as soon as this is
   * called, and a request that completed without suspending is returned as an `Exit` (which a
   * transport may answer without forking a fiber: `Exit.isExit`); otherwise, and whenever a step
   * suspends, it is an Effect to run in the request's fiber.
   */
  readonly handle: (request: Envelope.Request, context: RequestContext, resolved?: RouteTable.Resolved) => Effect.Effect<Outcome>
  /** Encodes an error for a frame that never became a request (parse errors, bad envelopes). */
  readonly reject: (id: Envelope.RequestId | null, error: McpError) => Outcome
  /**
   * Resumes an initialize-era session negotiated elsewhere (another instance, sharing sessions
   * through a store): it follows the hub from now on, as `initialize` made it do where it ran.
   */
  readonly resume?: (session: Session, principal: Principal["Service"]) => Effect.Effect<void>
}>()("@snodo/core/ServerRuntime") {}

/**
 * The parts a runtime is made of.
 *
 * @category models
 * @since 0.1.0
 */
export interface Parts {
  readonly settings: Settings
  readonly catalog: Catalog
  readonly dialects: Registry<Dialect>
  readonly executor: Executor["Service"]
  /** The application's services that handlers (and extensions) require. */
  readonly services: Context.Context<never>
  /** The authorization policy, when the application provides one. */
  readonly policy: Authorization.Policy | undefined
  /** The keys that seal MRTR request state (default: an ephemeral keyring, with a warning at first use). */
  readonly keyring?: Keyring["Service"]
  /** Where listen streams get their changes; without one, `subscriptions/listen` is -32601. */
  readonly hub?: SubscriptionHub["Service"]
  /** The extensions the application added. */
  readonly extensions?: ReadonlyArray<Extension.Extension<unknown>>
}

/** The executor's view of a component: its bulkhead's key and its limits, made once per definition. */
const executorComponents = new WeakMap<object, ExecutorComponent>()
const executorComponent = (component: Authorization.Component): ExecutorComponent => {
  let found = executorComponents.get(component.definition)
  if (found === undefined) {
    const key = component.kind === "resource"
      ? `resource:${component.uri}`
      : component.kind === "template"
      ? `template:${component.uriTemplate}`
      : `${component.kind}:${component.name}`
    found = { key, limits: component.definition.limits }
    executorComponents.set(component.definition, found)
  }
  return found
}

const utf8 = new TextEncoder()

/** A list page's result, serialized once, and its UTF-8 bytes. */
interface EncodedResult {
  readonly json: string
  readonly bytes: Uint8Array
}

const busyRefusal: Refusal = { reason: "busy", retryAfterMillis: 1000 }

const errorOutcome = (id: Envelope.RequestId | null, error: McpError, dialect: Dialect): Outcome => {
  const outcome = { _tag: "Error", frame: Encoder.error(id, toWire(error)), code: error.code, version: dialect.version } as const
  switch (error._tag) {
    case "ServerBusy":
      return { ...outcome, refusal: error.data.retryAfterMs === undefined ? busyRefusal : { reason: "busy", retryAfterMillis: error.data.retryAfterMs } }
    case "RateLimited":
      return { ...outcome, refusal: { reason: "rate-limited", retryAfterMillis: error.data.retryAfterMs } }
    default:
      return outcome
  }
}

/** The initialize era's input requests (`ClientInput`), loaded when a runtime enables that era. */
const clientInput = LazyModule.make(() => import("./ClientInput.ts"))

const ephemeralWarning =
  "No Keyring configured: MRTR request state is sealed with an ephemeral key, so input_required rounds will not survive a restart or cross instances"

/**
 * Assembles the runtime from its parts; builds the extensions' contributions.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(parts: Parts): Effect.fn.Return<ServerRuntime["Service"], CatalogError | ConfigurationError> {
  const { catalog, dialects, executor, policy, settings } = parts
  const preferred = dialects.dialects[0]!
  const hub = parts.hub === undefined ? undefined : CatalogViews.visibleHub(parts.hub, catalog, policy)
  // A runtime that serves `subscriptions/listen` (it has a hub) loads the stream's machinery now,
  // so its first stream starts as every later one does.
  if (hub !== undefined) yield* listenStream.load
  const filters: Array<Listen.ExtensionFilter> = []
  const instrumentation = yield* Instrumentation.make(parts.services, executor.queued)
  // The initialize era's input requests (a dialect whose `inputs` are "requests", 2025-11-25),
  // loaded by its `import()` here when a registered dialect needs them: a server that does not
  // enable that era does not load (parse) them. Every request's dialect is a registered one.
  // (A registry whose `get` answers a dialect it does not list loads them at that dialect's first request.)
  if (dialects.dialects.some((dialect) => dialect.inputs === "requests")) yield* clientInput.load
  const provider = RequestServices.make(settings, parts.services, instrumentation)
  const environment: Route.Environment = {
    settings,
    catalog,
    executor,
    views: CatalogViews.make(catalog, policy),
    hub,
    supportedVersions: dialects.supported,
    dialects,
    provider,
    listen: { support: Listen.supportOf(settings.capabilities), filters, streams: Listen.makeStreams(Listen.defaultStdioStreams) },
    observers: instrumentation
  }
  const contributed: Array<RouteTable.Contributed> = []
  for (const extension of parts.extensions ?? []) {
    // An extension's requirements are erased here; `McpServer.layer` proved them at the type level.
    const contribution = yield* Effect.provideContext(
      extension.make(environment) as Effect.Effect<Extension.Contribution, CatalogError>,
      parts.services
    )
    contributed.push({ name: extension.name, contribution })
    for (const filter of contribution.listen ?? []) filters.push({ ...filter, extension: extension.name })
  }
  const offered = settings.capabilities
  const routes = RouteTable.make({
    dialects: dialects.dialects,
    extensions: contributed,
    offers: (capability) => capability === "subscriptions" ? hub !== undefined : offered[capability] !== undefined
  })
  const uncacheable = Object.keys(settings.cache).filter((method) => routes.find(method)?.cacheable !== true)
  if (uncacheable.length > 0) {
    const cacheable = routes.methods.filter((method) => routes.find(method)?.cacheable === true)
    return yield* new ConfigurationError({
      message: `cache hints for methods that are not cacheable: ${uncacheable.join(", ")} (cacheable: ${cacheable.join(", ")})`
    })
  }

  const keyring = parts.keyring ?? generateKeyring()
  // Warned once, when a round first seals state with the ephemeral key (a server whose handlers
  // never ask for input never sees the warning).
  let warnEphemeral = parts.keyring === undefined
  const sealed = (outcome: Round.Outcome<Route.Reply>): Effect.Effect<Route.Reply> => {
    if (outcome._tag === "Complete") return Exit.succeed(outcome.value)
    const reply: Route.Reply = { _tag: "Result", result: outcome.result }
    if (!warnEphemeral) return Effect.succeed(reply)
    warnEphemeral = false
    return Effect.as(Effect.logWarning(ephemeralWarning), reply)
  }

  const cacheOf = (route: Route.Any): CacheHint | undefined =>
    route.cacheable ? settings.cache[route.method] ?? defaultCacheHint : undefined

  /**
   * The shaped result of a reply whose result is the same on every request (a list page, the same
   * reply object each time: routes/List), serialized once per dialect: shaping depends only on the
   * result, the server's info and the cache hint, all fixed for that reply and route. A new page
   * (a changed catalog, another principal's view) is a new reply.
   */
  const encodedResults = new WeakMap<Route.Reply, Map<Dialect, EncodedResult>>()
  const encodedResult = (
    reply: Route.Reply & { readonly _tag: "Result" },
    encoded: { readonly key: string; readonly json: string },
    route: Route.Any,
    dialect: Dialect
  ): EncodedResult => {
    let byDialect = encodedResults.get(reply)
    if (byDialect === undefined) {
      byDialect = new Map()
      encodedResults.set(reply, byDialect)
    }
    let result = byDialect.get(dialect)
    if (result === undefined) {
      const json = Encoder.objectWithEncoded(dialect.shape(reply.result, settings.serverInfo, reply.cache ?? cacheOf(route)), encoded.key, encoded.json)
      // Its UTF-8 bytes too, made once: a transport writes them as they are (Outcome's `encoded`).
      result = { json, bytes: utf8.encode(json) }
      byDialect.set(dialect, result)
    }
    return result
  }

  const encode = (request: Envelope.Request, route: Route.Any, dialect: Dialect, reply: Route.Reply): Outcome => {
    if (reply._tag === "Error") return { ...errorOutcome(request.id, reply.error, dialect), streamEnd: reply.streamEnd }
    if (reply.encoded !== undefined) {
      const result = encodedResult(reply, reply.encoded, route, dialect)
      const head = Encoder.resultHead(request.id)
      const encoded = { head, bytes: result.bytes, tail: "}" }
      const frame = `${head}${result.json}}`
      return reply.streamEnd === undefined ? { _tag: "Result", frame, encoded } : { _tag: "Result", frame, encoded, streamEnd: reply.streamEnd }
    }
    const frame = Encoder.result(request.id, dialect.shape(reply.result, settings.serverInfo, reply.cache ?? cacheOf(route)))
    return reply.streamEnd === undefined ? { _tag: "Result", frame } : { _tag: "Result", frame, streamEnd: reply.streamEnd }
  }

  const onCause = (id: Envelope.RequestId, dialect: Dialect) => (cause: Cause.Cause<McpError>): Effect.Effect<Outcome> => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
    const failure = Cause.findError(cause)
    if (failure._tag === "Success" && isMcpError(failure.success)) return Effect.succeed(errorOutcome(id, failure.success, dialect))
    return Effect.logError("Handler defect", cause).pipe(Effect.as({ ...errorOutcome(id, internalErrorOfDefect(), dialect), exception: true }))
  }

  /**
   * Steps 6 and 7: the invocation check, then the route (as a round, in the executor). Each step
   * handed a completed effect (an `Exit`) completes at once (pipeline/internal/Immediate), so a
   * handler that answered without suspending comes out as an `Exit`.
   */
  const run = (
    entry: RouteTable.Entry,
    request: Envelope.Request,
    admitted: Admitted,
    params: unknown,
    target: unknown,
    context: RequestContext,
    principal: Principal["Service"]
  ): Effect.Effect<Route.Reply, McpError> => {
    const { route } = entry
    const { dialect, meta } = admitted
    const negotiated = (name: string) => Extension.negotiated(meta.clientCapabilities, name)
    const callWith = (provide: Route.Provide): Route.Call => ({
      request,
      params,
      meta,
      dialect,
      principal,
      transport: context,
      environment,
      provide,
      negotiated
    })
    const guard = route.guard(target)
    const bounded = (call: Route.Call) =>
      route.bounded
        ? executor.run(route.run(call, target), { component: guard === undefined ? undefined : executorComponent(guard.component), principal: principal.id })
        : route.run(call, target)
    // The request services are made when a handler's effect needs them: one that completed needs none.
    let services: RequestServices.ProvideWith | undefined
    const provideWith: RequestServices.ProvideWith = (effect, session) =>
      Immediate.isDone(effect) ? effect : (services ??= provider(request, meta, context, principal))(effect, session)
    let body: Effect.Effect<Route.Reply, McpError>
    if (route.mayAskInput) {
      body = dialect.inputs === "requests"
        ? LazyModule.use(clientInput, (ClientInput) =>
          ClientInput.run(
            { requests: context.session?.requests, sink: context.sink, timeout: settings.clientRequestTimeout },
            meta,
            provideWith,
            (provide) => bounded(callWith(provide))
          )
        )
        : Immediate.flatMap(
          Round.run(keyring, request, meta, principal.id, provideWith, (provide) => bounded(callWith(provide)), context.span),
          sealed
        )
    } else {
      body = bounded(callWith((effect) => provideWith(effect, undefined)))
    }
    if (guard === undefined || policy === undefined) return body
    const info: Authorization.RequestInfo = { principal, method: request.method }
    const checked = checkInvocation(policy, guard.component, info, guard.notFound)
    if (instrumentation === undefined) return Immediate.andThen(checked, body)
    const forbidden = (error: McpError) => instrumentation.forbidden(request, context, principal.id, error.code)
    if (!Immediate.isDone(checked)) return Immediate.andThen(Effect.tapError(checked, (error) => Effect.sync(() => forbidden(error))), body)
    // A refusal decided at once is observed at once (as `Effect.tapError` would: its typed failure).
    if (Exit.isFailure(checked)) {
      const refused = Cause.findError(checked.cause)
      if (refused._tag === "Success") forbidden(refused.success)
    }
    return Immediate.andThen(checked, body)
  }

  /**
   * The route's reply, encoded: at once when the route answered without suspending. A throw of
   * the route or of the encoding is a defect, as it would be in a fiber.
   */
  const answer = (
    entry: RouteTable.Entry,
    request: Envelope.Request,
    admitted: Admitted,
    params: unknown,
    target: unknown,
    context: RequestContext,
    principal: Principal["Service"]
  ): Effect.Effect<Outcome> => {
    const dialect = admitted.dialect
    try {
      return Immediate.catchCause(
        Immediate.map(run(entry, request, admitted, params, target, context, principal), (reply) => encode(request, entry.route, dialect, reply)),
        onCause(request.id, dialect)
      )
    } catch (defect) {
      return onCause(request.id, dialect)(Cause.die(defect))
    }
  }

  /** The dialect an initialize-era session negotiated, for the -32601 of a method no dialect serves. */
  const sessionDialect = (context: RequestContext): Dialect | undefined => {
    const version = context.session?.negotiated?.version
    return version === undefined ? undefined : dialects.get(version)
  }

  const handle = (request: Envelope.Request, context: RequestContext, known?: RouteTable.Resolved): Effect.Effect<Outcome> => {
    const { id, method } = request
    const resolved = known ?? routes.resolve(method)
    if (resolved === undefined || !resolved.served) {
      const negotiated = sessionDialect(context)
      return Exit.succeed(errorOutcome(id, routes.notFound(method, negotiated), negotiated ?? preferred))
    }
    const admitted = admit(dialects, request, context.session)
    if (isMcpError(admitted)) return Exit.succeed(errorOutcome(id, admitted, sessionDialect(context) ?? preferred))
    const { dialect, meta } = admitted
    const entry = resolved.entries.get(dialect)
    if (entry === undefined) return Exit.succeed(errorOutcome(id, routes.notFound(method, dialect), dialect))
    if (entry.extension !== undefined && !Extension.negotiated(meta.clientCapabilities, entry.extension)) {
      return Exit.succeed(errorOutcome(id, Extension.required(entry.extension), dialect))
    }
    const params = entry.decode(request.params)
    if (RouteTable.isInvalid(params)) return Exit.succeed(errorOutcome(id, params, dialect))
    const target = entry.route.resolve(params, environment)
    if (isMcpError(target)) return Exit.succeed(errorOutcome(id, target, dialect))
    const principal = context.principal
    return principal === undefined
      ? Effect.withFiber((fiber) => answer(entry, request, admitted, params, target, context, fromContext(fiber.context)))
      : answer(entry, request, admitted, params, target, context, principal)
  }

  return {
    settings,
    catalog,
    dialects,
    routes,
    handle: instrumentation === undefined ? handle : instrumentation.wrap(handle, routes),
    reject: (id, error) => errorOutcome(id, error, preferred),
    resume: (session, principal) => hub === undefined ? Effect.void : session.follow(hub, principal, environment.listen.support)
  }
})
