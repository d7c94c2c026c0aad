/**
 * The running server: the service every transport talks to.
 *
 * `handle` takes one decoded request and the transport's request context and produces exactly one
 * encoded response. It never fails: protocol errors become error responses and defects become a
 * generic -32603 (the cause is logged on stderr, never written). Interrupting the returned Effect
 * is cancellation: the handler's fiber is interrupted, its finalizers run, nothing is written.
 *
 * @since 0.1.0
 */
import { Cause, Context, Effect } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import * as Pagination from "../catalog/Pagination.ts"
import { admit } from "../pipeline/Admission.ts"
import type { DialectRegistry, RequestMeta } from "../pipeline/Dialect.ts"
import * as Encoder from "../pipeline/Encoder.ts"
import type * as Envelope from "../pipeline/Envelope.ts"
import {
  type ApplicationError,
  internalErrorOfDefect,
  InvalidParams,
  isMcpError,
  type McpError,
  MethodNotFound,
  toWire
} from "../pipeline/McpError.ts"
import * as Router from "../pipeline/Router.ts"
import { generate as generateKeyring, type Keyring } from "../mrtr/Keyring.ts"
import { McpInput, type Session } from "../mrtr/Input.ts"
import * as Round from "../mrtr/Round.ts"
import { type CacheableMethod, type CacheHint, defaultCacheHint, shape } from "../pipeline/Shaping.ts"
import * as Authorization from "./Authorization.ts"
import * as CatalogViews from "./CatalogViews.ts"
import * as Complete from "./Complete.ts"
import type { Executor } from "./Executor.ts"
import * as Listen from "./Listen.ts"
import { McpLog, makeLogger } from "./McpLog.ts"
import { McpRequest, type TransportKind } from "./McpRequest.ts"
import { Progress, type Limits as ProgressLimits, makeReporter } from "./Progress.ts"
import { fromContext, type Principal } from "./Principal.ts"
import * as PromptGet from "./PromptGet.ts"
import type { RequestSink } from "./RequestSink.ts"
import * as ResourceRead from "./ResourceRead.ts"
import type { SubscriptionHub } from "./SubscriptionHub.ts"
import * as ToolCall from "./ToolCall.ts"

/** What a transport knows about one request. @since 0.1.0 */
export interface RequestContext {
  readonly transport: TransportKind
  /** Where request-scoped notifications go; `undefined` when the transport cannot deliver them. */
  readonly sink: RequestSink | undefined
  /**
   * The transport's open `subscriptions/listen` streams and their cap (a stdio connection, an
   * HTTP server). Without it, the runtime's own streams apply (capped at 32).
   */
  readonly subscriptions?: Listen.Streams
}

/**
 * One encoded response; `code` tells transports (HTTP status) which error it carries. `streamEnd`
 * is set when the response ends a listen stream the server closed: a transport whose streams share
 * one channel (stdio) writes it right after the response; one with a stream per request (HTTP)
 * ends that stream instead.
 *
 * @since 0.1.0
 */
export type Outcome =
  | { readonly _tag: "Result"; readonly frame: string; readonly streamEnd?: string }
  | {
    readonly _tag: "Error"
    readonly frame: string
    readonly code: number
    readonly streamEnd?: string
    /** Set when the request was refused by a bound, not failed: HTTP answers 503 or 429 with `Retry-After`. */
    readonly refusal?: Refusal
  }

/**
 * Why a request was refused before it ran, and when to retry: `"busy"` (a concurrency or queue
 * bound: `ServerBusy`) or `"rate-limited"` (a component's rate limit: `RateLimited`).
 *
 * @since 0.1.0
 */
export interface Refusal {
  readonly reason: "busy" | "rate-limited"
  readonly retryAfterMillis: number
}

/** The server's fixed configuration, resolved from its options. @since 0.1.0 */
export interface Settings {
  readonly serverInfo: Readonly<Record<string, unknown>>
  readonly instructions: string | undefined
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly cache: Readonly<Record<CacheableMethod, CacheHint>>
  readonly logging: boolean
  readonly progress: ProgressLimits
  readonly listen: Listen.Limits
}

/** @since 0.1.0 */
export class ServerRuntime extends Context.Service<ServerRuntime, {
  readonly settings: Settings
  readonly catalog: Catalog
  readonly dialects: DialectRegistry["Service"]
  readonly handle: (request: Envelope.Request, context: RequestContext) => Effect.Effect<Outcome>
  /** Encodes an error for a frame that never became a request (parse errors, bad envelopes). */
  readonly reject: (id: Envelope.RequestId | null, error: McpError) => Outcome
}>()("@snodo/core/ServerRuntime") {}

/** The parts a runtime is made of. @since 0.1.0 */
export interface Parts {
  readonly settings: Settings
  readonly catalog: Catalog
  readonly dialects: DialectRegistry["Service"]
  readonly executor: Executor["Service"]
  /** The application's services that handlers require. */
  readonly services: Context.Context<never>
  /** The authorization policy, when the application provides one. */
  readonly policy: Authorization.Policy | undefined
  /** The keys that seal MRTR request state (default: an ephemeral keyring). */
  readonly keyring?: Keyring["Service"]
  /** Where listen streams get their changes; without one, `subscriptions/listen` is -32601. */
  readonly hub?: SubscriptionHub["Service"]
}

const busyRefusal: Refusal = { reason: "busy", retryAfterMillis: 1000 }

const errorOutcome = (id: Envelope.RequestId | null, error: McpError): Outcome => {
  const outcome = { _tag: "Error", frame: Encoder.error(id, toWire(error)), code: error.code } as const
  switch (error._tag) {
    case "ServerBusy":
      return { ...outcome, refusal: busyRefusal }
    case "RateLimited":
      return { ...outcome, refusal: { reason: "rate-limited", retryAfterMillis: error.data.retryAfterMs } }
    default:
      return outcome
  }
}

interface Handled {
  readonly result: Readonly<Record<string, unknown>>
  readonly cache: CacheHint | undefined
  /** A member of the result already serialized (list pages). */
  readonly encoded?: { readonly key: string; readonly json: string }
}

const cursorOf = (params: Readonly<Record<string, unknown>>): string | undefined | InvalidParams => {
  const cursor = params["cursor"]
  if (cursor === undefined || typeof cursor === "string") return cursor
  return new InvalidParams({ message: "Invalid params: cursor must be a string" })
}

/** Each page of a list serialized once (lists are immutable; views are cached per principal). */
const encodedPages = new WeakMap<object, WeakMap<object, string>>()

const encodedPage = (list: Pagination.PagedList<object>, items: ReadonlyArray<object>): string => {
  // a page is identified by its first entry (entries are the list's own, stable objects)
  const first = items[0]
  if (first === undefined) return "[]"
  let pages = encodedPages.get(list)
  if (pages === undefined) {
    pages = new WeakMap()
    encodedPages.set(list, pages)
  }
  let encoded = pages.get(first)
  if (encoded === undefined) {
    encoded = JSON.stringify(items)
    pages.set(first, encoded)
  }
  return encoded
}

const listPage = (
  list: Pagination.PagedList<Readonly<Record<string, unknown>>>,
  key: string,
  params: Readonly<Record<string, unknown>>,
  cache: CacheHint
): Effect.Effect<Handled, McpError> => {
  const cursor = cursorOf(params)
  if (cursor instanceof InvalidParams) return Effect.fail(cursor)
  const page = Pagination.page(list, cursor)
  if (page instanceof InvalidParams) return Effect.fail(page)
  const result: Record<string, unknown> = {}
  if (page.nextCursor !== undefined) result["nextCursor"] = page.nextCursor
  return Effect.succeed({ result, cache, encoded: { key, json: encodedPage(list, page.items) } })
}

/**
 * Assembles the runtime service from its parts.
 *
 * @since 0.1.0
 */
export const make = (parts: Parts): ServerRuntime["Service"] => {
  const { catalog, dialects, executor, settings } = parts
  const enabled: Record<Router.Capability, boolean> = {
    tools: settings.capabilities["tools"] !== undefined,
    resources: settings.capabilities["resources"] !== undefined,
    prompts: settings.capabilities["prompts"] !== undefined,
    completions: settings.capabilities["completions"] !== undefined,
    subscriptions: parts.hub !== undefined
  }
  const discover: Handled = {
    result: {
      supportedVersions: dialects.supported,
      capabilities: settings.capabilities,
      ...(settings.instructions === undefined ? {} : { instructions: settings.instructions })
    },
    cache: settings.cache["server/discover"]
  }

  const views = CatalogViews.make(catalog, parts.policy)
  const policy = parts.policy
  const keyring = parts.keyring ?? generateKeyring()

  /**
   * The transport's context with the application's services over it, made once per transport
   * context (a stdio connection, an HTTP server: the same object for every request), so that a
   * request only adds its own services on top instead of copying every service.
   */
  const withApplication = new WeakMap<Context.Context<never>, Context.Context<never>>()
  const applicationOver = (transport: Context.Context<never>): Context.Context<never> => {
    let merged = withApplication.get(transport)
    if (merged === undefined) {
      merged = Context.merge(transport, parts.services)
      withApplication.set(transport, merged)
    }
    return merged
  }

  /**
   * Provides a handler's effect with the request's services (and, for the methods that may answer
   * `input_required`, the round's session) in one step over the application's context.
   */
  const provider = (request: Envelope.Request, meta: RequestMeta, context: RequestContext, principal: Principal["Service"]) => {
    const reporter = makeReporter(meta.progressToken, context.sink, settings.progress)
    const logger = makeLogger(settings.logging, meta.logLevel, context.sink)
    const current: McpRequest["Service"] = {
      id: request.id,
      method: request.method,
      params: request.params,
      meta,
      transport: context.transport,
      principal
    }
    // Handlers' requirements are erased in the catalog; `McpServer.layer` proved at the type level
    // that the captured context plus the request services satisfy them.
    const provideWith: Round.ProvideWith = <A, E>(effect: Effect.Effect<A, E, unknown>, session: Session | undefined) =>
      Effect.ensuring(
        Effect.updateContext(effect as Effect.Effect<A, E, never>, (transport: Context.Context<never>) => {
          const services = Context.add(Context.add(Context.add(applicationOver(transport), McpRequest, current), Progress, reporter), McpLog, logger)
          return session === undefined ? services : Context.add(services, McpInput, session)
        }),
        reporter.close
      )
    return provideWith
  }

  /** Runs `then` after the invocation check (directly, without a policy). */
  const authorized = <A, E>(
    component: Authorization.Component,
    info: Authorization.RequestInfo,
    notFound: () => E,
    then: Effect.Effect<A, E>
  ): Effect.Effect<A, E | ApplicationError> =>
    policy === undefined ? then : Effect.andThen(Authorization.checkInvocation(policy, component, info, notFound), then)

  /** `tools/call`, `resources/read` and `prompts/get` may answer `input_required` (see Round). */
  const rounds = <A>(
    request: Envelope.Request,
    meta: RequestMeta,
    principal: Principal["Service"],
    provide: Round.ProvideWith,
    body: (provide: Round.Provide) => Effect.Effect<A, McpError>,
    complete: (value: A) => Handled
  ): Effect.Effect<Handled, McpError> =>
    Round.run(keyring, request, meta, principal.id, provide, body).pipe(
      Effect.map((outcome) => outcome._tag === "Complete" ? complete(outcome.value) : { result: outcome.result, cache: undefined })
    )

  const route = (
    request: Envelope.Request,
    meta: RequestMeta,
    context: RequestContext,
    principal: Principal["Service"]
  ): Effect.Effect<Handled, McpError> => {
    const params = request.params
    const info: Authorization.RequestInfo = { principal, method: request.method }
    const provide = () => provider(request, meta, context, principal)
    switch (request.method) {
      case "server/discover":
        return Effect.succeed(discover)
      case "tools/list":
        return listPage(views("tools", info), "tools", params, settings.cache["tools/list"])
      case "resources/list":
        return listPage(views("resources", info), "resources", params, settings.cache["resources/list"])
      case "resources/templates/list":
        return listPage(views("templates", info), "resourceTemplates", params, settings.cache["resources/templates/list"])
      case "prompts/list":
        return listPage(views("prompts", info), "prompts", params, settings.cache["prompts/list"])
      case "tools/call": {
        const call = ToolCall.resolve(catalog, params)
        if (call instanceof InvalidParams) return Effect.fail(call)
        const tool = call.tool.tool
        return authorized(
          Authorization.toolComponent(tool),
          info,
          () => ToolCall.unknownTool(tool.name),
          rounds(request, meta, principal, provide(), (input) => executor.run(ToolCall.run(call, input)), (result) => ({
            result,
            cache: undefined
          }))
        )
      }
      case "resources/read": {
        const target = ResourceRead.resolve(catalog, params)
        if (target instanceof InvalidParams) return Effect.fail(target)
        const component: Authorization.Component = target._tag === "Resource"
          ? Authorization.resourceComponent(target.resource)
          : Authorization.templateComponent(target.template)
        return authorized(
          component,
          info,
          () => ResourceRead.notFound(target.uri),
          rounds(request, meta, principal, provide(), (input) => executor.run(ResourceRead.run(target, input)), (read) => ({
            result: read.result,
            cache: read.cache ?? settings.cache["resources/read"]
          }))
        )
      }
      case "prompts/get": {
        const prompt = PromptGet.resolve(catalog, params)
        if (prompt instanceof InvalidParams) return Effect.fail(prompt)
        return authorized(
          Authorization.promptComponent(prompt),
          info,
          () => PromptGet.unknownPrompt(prompt.name),
          rounds(request, meta, principal, provide(), (input) => executor.run(PromptGet.run(prompt, params, input)), (result) => ({
            result,
            cache: undefined
          }))
        )
      }
      case "completion/complete": {
        const resolved = Complete.resolve(catalog, params)
        if (resolved instanceof InvalidParams) return Effect.fail(resolved)
        const target = resolved.target
        const component: Authorization.Component = target._tag === "Prompt"
          ? Authorization.promptComponent(target.prompt)
          : Authorization.templateComponent(target.template)
        return authorized(
          component,
          info,
          () => Complete.unknownRef(params["ref"] as Record<string, unknown>),
          Effect.map(executor.run(Complete.run(resolved, (effect) => provide()(effect, undefined))), (result) => ({ result, cache: undefined }))
        )
      }
      default:
        return Effect.fail(new MethodNotFound({ message: Router.notFoundMessage(request.method, dialects.supported) }))
    }
  }

  const hub = parts.hub === undefined ? undefined : CatalogViews.visibleHub(parts.hub, catalog, parts.policy)
  const support = Listen.supportOf(settings.capabilities)
  const ownStreams = Listen.makeStreams(Listen.defaultStdioStreams)

  /** A listen stream, answered only when the server ends it (the client ending it interrupts). */
  const listen = (
    source: SubscriptionHub["Service"],
    request: Envelope.Request,
    context: RequestContext,
    principal: Principal["Service"]
  ): Effect.Effect<Outcome> =>
    Listen.run({
      id: request.id,
      params: request.params,
      hub: source,
      support,
      limits: settings.listen,
      sink: context.sink,
      streams: context.subscriptions ?? ownStreams,
      principal
    }).pipe(
      Effect.map((end): Outcome =>
        end._tag === "Graceful"
          ? {
            _tag: "Result",
            frame: Encoder.result(request.id, shape(Listen.closedResult(request.id), settings.serverInfo, undefined)),
            streamEnd: Listen.cancelledFrame(request.id, "The server closed the subscription")
          }
          : {
            ...errorOutcome(request.id, Listen.overflowError(end.queue)),
            streamEnd: Listen.cancelledFrame(request.id, "The subscription overflowed: the client did not keep up")
          }
      ),
      Effect.catchCause((cause) => onCause(request.id, cause))
    )

  const onCause = (id: Envelope.RequestId, cause: Cause.Cause<McpError>): Effect.Effect<Outcome> => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
    const failure = Cause.findError(cause)
    if (failure._tag === "Success" && isMcpError(failure.success)) return Effect.succeed(errorOutcome(id, failure.success))
    return Effect.logError("Handler defect", cause).pipe(Effect.as(errorOutcome(id, internalErrorOfDefect())))
  }

  const handle = (request: Envelope.Request, context: RequestContext): Effect.Effect<Outcome> => {
    const capability = Router.methods.get(request.method)
    if (!Router.methods.has(request.method) || (capability !== undefined && !enabled[capability])) {
      return Effect.succeed(errorOutcome(request.id, new MethodNotFound({ message: Router.notFoundMessage(request.method, dialects.supported) })))
    }
    const meta = admit(dialects, request.params)
    if (isMcpError(meta)) return Effect.succeed(errorOutcome(request.id, meta))
    if (request.method === "subscriptions/listen" && hub !== undefined) {
      return Effect.withFiber((fiber) => listen(hub, request, context, fromContext(fiber.context)))
    }
    return Effect.withFiber((fiber) => route(request, meta, context, fromContext(fiber.context))).pipe(
      Effect.map((handled): Outcome => ({
        _tag: "Result",
        frame: handled.encoded === undefined
          ? Encoder.result(request.id, shape(handled.result, settings.serverInfo, handled.cache))
          : Encoder.resultWithEncoded(request.id, shape(handled.result, settings.serverInfo, handled.cache), handled.encoded.key, handled.encoded.json)
      })),
      Effect.catchCause((cause) => onCause(request.id, cause))
    )
  }

  return { settings, catalog, dialects, handle, reject: errorOutcome }
}

/** Default cache hints for every cacheable method. @since 0.1.0 */
export const defaultCache: Readonly<Record<CacheableMethod, CacheHint>> = {
  "server/discover": defaultCacheHint,
  "tools/list": defaultCacheHint,
  "resources/list": defaultCacheHint,
  "resources/templates/list": defaultCacheHint,
  "prompts/list": defaultCacheHint,
  "resources/read": defaultCacheHint
}

/** Whether the catalog offers completions, so the capability is advertised. @since 0.1.0 */
export const offersCompletions = Complete.hasProviders
