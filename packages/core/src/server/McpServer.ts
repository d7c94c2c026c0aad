/**
 * The server definition: identity, options and components, composed into a Layer.
 *
 * `McpServer.make` starts an immutable definition; `.add` returns a new one with more components
 * (the handler requirements accumulate in the type). `.layer` builds the catalog (refusing
 * duplicates, overlaps and schemas that do not compile) and provides the {@link ServerRuntime} that
 * transports serve. Handlers' own services are taken from the Layer's context once, when it is
 * built; request services (`McpRequest`, `Progress`, `McpLog`) are added per request. `.extend`
 * adds an extension (see extension/Extension): a server serves only the extensions added to it.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/Tool"
 * import * as McpServer from "@snodo/core/McpServer"
 *
 * const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed({ text }))
 *
 * const Server = McpServer.make({ name: "demo", version: "1.0.0" }).add(echo)
 * // Server.layer: Layer<ServerRuntime, CatalogError>
 * ```
 *
 * @since 0.1.0
 */
import { type Context, type Duration, Effect, Layer, Option, type Pipeable } from "effect"
import { dual } from "effect/Function"
import * as Catalog from "../catalog/Catalog.ts"
import type * as Prompt from "../catalog/Prompt.ts"
import type * as Resource from "../catalog/Resource.ts"
import type * as ResourceTemplate from "../catalog/ResourceTemplate.ts"
import { SchemaValidator } from "../catalog/SchemaValidator.ts"
import type * as Tool from "../catalog/Tool.ts"
import type { McpInput } from "../mrtr/Input.ts"
import type * as Extension from "../routes/Extension.ts"
import * as Complete from "../routes/Complete.ts"
import { Keyring } from "../mrtr/Keyring.ts"
import * as DialectRegistry from "../dialects/DialectRegistry.ts"

export type { BuiltInVersion } from "../dialects/DialectRegistry.ts"
import { ConfigurationError } from "../pipeline/ConfigurationError.ts"
import * as LazyModule from "../pipeline/internal/LazyModule.ts"
import type { Dialect } from "../routes/Dialect.ts"
import { AuthorizationPolicy } from "../runtime/Authorization.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"
import { Executor, makeUnsafe as makeExecutor, type Options as ExecutorOptions } from "../runtime/Executor.ts"
import { defaultLimits as defaultListenLimits, type Limits as ListenLimits } from "../runtime/Listen.ts"
import type { McpLog } from "../runtime/McpLog.ts"
import type { McpRequest } from "../runtime/McpRequest.ts"
import { defaultLimits as defaultProgressLimits, type Limits as ProgressLimits, type Progress } from "../runtime/Progress.ts"
import * as ServerRuntime from "./ServerRuntime.ts"
import { SubscriptionHub } from "../runtime/SubscriptionHub.ts"

/**
 * The services snodo provides to every handler.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestServices = McpRequest | Progress | McpLog | McpInput

/**
 * Server options. Every limit has a safe default.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly name: string
  readonly version: string
  readonly title?: string
  readonly description?: string
  readonly websiteUrl?: string
  readonly icons?: ReadonlyArray<Tool.Icon>
  /** Guidance for the model, advertised by `server/discover`. */
  readonly instructions?: string
  /**
   * Cache hints by method, for the cacheable ones (`server/discover`, the four lists,
   * `resources/read`); default `{ ttlMs: 0, cacheScope: "private" }`. A hint for a method that is
   * not cacheable fails the Layer.
   */
  readonly cache?: Readonly<Record<string, CacheHint>>
  /** Advertise the (deprecated) `logging` capability and deliver `McpLog` messages. Default false. */
  readonly logging?: boolean
  /** Page size of the four lists (default 100). */
  readonly pageSize?: number
  /**
   * The executor's global bounds over every component (default 1,024 running, 4,096 waiting);
   * each component's own bulkhead, timeout and rate limit are options of its definition
   * (`concurrency`, `queue`, `timeout`, `rateLimit`: see `ComponentOptions`).
   */
  readonly executor?: ExecutorOptions
  readonly progress?: Partial<ProgressLimits>
  /**
   * Per-stream limits of `subscriptions/listen` (default 64 queued changes or 1 Mi characters of
   * them, drop-oldest, 1,000 URIs). Listen is served only when a `SubscriptionHub` is provided.
   */
  readonly subscriptions?: Partial<ListenLimits>
  /**
   * Settings advertised in `capabilities.extensions` beside those of the extensions added with
   * `.extend` (for an extension the application implements outside snodo's seam).
   */
  readonly extensions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /**
   * The protocol revisions the server speaks, preferred first: the built-in ones by version, or
   * dialect values of your own. Default `["2026-07-28"]`; add `"2025-11-25"` to serve
   * initialize-era clients too (see docs/dialects.md). Given, it wins over a `DialectRegistry`
   * in context.
   */
  readonly dialects?: ReadonlyArray<DialectRegistry.BuiltInVersion | Dialect>
  /**
   * How long a handler waits for the client's answer when the initialize-era dialect sends its
   * `Input` asks as server-to-client requests (default 60 s).
   */
  readonly clientRequestTimeout?: Duration.Input
}

/**
 * The services a component's handlers require.
 *
 * @category models
 * @since 0.1.0
 */
type ComponentServices<C> = C extends Tool.Tool<infer R> ? R
  : C extends Resource.Resource<infer R> ? R
  : C extends ResourceTemplate.ResourceTemplate<infer R> ? R
  : C extends Prompt.Prompt<infer R> ? R
  : never

const TypeId: unique symbol = Symbol.for("@snodo/core/McpServer")

/**
 * A server definition.
 *
 * @category models
 * @since 0.1.0
 */
export interface McpServer<out R = never> extends Pipeable.Pipeable {
  readonly [TypeId]: typeof TypeId
  readonly options: Options
  readonly components: ReadonlyArray<Catalog.Component>
  readonly extensions: ReadonlyArray<Extension.Extension<unknown>>
  /** A new definition with these components added. */
  readonly add: <const C extends ReadonlyArray<Catalog.Component>>(
    ...components: C
  ) => McpServer<R | ComponentServices<C[number]>>
  /** A new definition that serves this extension too (one extension per name). */
  readonly extend: <RX>(extension: Extension.Extension<RX>) => McpServer<R | RX>
  /** The runtime, built from this definition (the same Layer value however often it is read). */
  readonly layer: Layer.Layer<ServerRuntime.ServerRuntime, Catalog.CatalogError | ConfigurationError, Exclude<R, RequestServices>>
}

// Pipeable's `pipeArguments`, written out: `effect/Pipeable` was imported for it alone (~1 M
// instructions at every start, bench/PROFILE.md).
const Proto = {
  pipe(this: unknown, ...fns: ReadonlyArray<(a: unknown) => unknown>) {
    return fns.reduce((out, f) => f(out), this)
  }
}

/** With a hub, every served kind of component advertises change notifications. */
const capabilitiesOf = (
  options: Options,
  catalog: Catalog.Catalog,
  hub: boolean,
  extensions: ReadonlyArray<Extension.Extension<unknown>>
): Record<string, unknown> => {
  const capabilities: Record<string, unknown> = {}
  if (catalog.tools.size > 0) capabilities["tools"] = hub ? { listChanged: true } : {}
  if (catalog.resources.size > 0 || catalog.templates.length > 0) {
    capabilities["resources"] = hub ? { subscribe: true, listChanged: true } : {}
  }
  if (catalog.prompts.size > 0) capabilities["prompts"] = hub ? { listChanged: true } : {}
  if (Complete.hasProviders(catalog)) capabilities["completions"] = {}
  if (options.logging === true) capabilities["logging"] = {}
  const advertised: Record<string, unknown> = { ...options.extensions }
  for (const extension of extensions) advertised[extension.name] = extension.settings
  if (Object.keys(advertised).length > 0) capabilities["extensions"] = advertised
  return capabilities
}

/**
 * With an authorization policy, responses differ per principal: a `public` cache scope would let a
 * shared cache serve one principal's list to another.
 */
const refusePublicCaching = (cache: Readonly<Record<string, CacheHint>>, catalog: Catalog.Catalog) => {
  const publicMethods = Object.entries(cache).filter(([, hint]) => hint.cacheScope === "public").map(([method]) => method)
  const publicResources = [
    ...[...catalog.resources.values()].filter((resource) => resource.cache?.cacheScope === "public").map((resource) => resource.description.uri),
    ...catalog.templates.filter((template) => template.template.cache?.cacheScope === "public").map((template) => template.parsed.source)
  ]
  const offenders = [...publicMethods, ...publicResources]
  return offenders.length === 0
    ? Effect.void
    : Effect.fail(new ConfigurationError({
      message: `cacheScope "public" is not allowed with an AuthorizationPolicy (responses differ per principal): ${offenders.join(", ")}`
    }))
}

const serverInfoOf = (options: Options): Record<string, unknown> => {
  const info: Record<string, unknown> = { name: options.name, version: options.version }
  if (options.title !== undefined) info["title"] = options.title
  if (options.description !== undefined) info["description"] = options.description
  if (options.websiteUrl !== undefined) info["websiteUrl"] = options.websiteUrl
  if (options.icons !== undefined) info["icons"] = options.icons
  return info
}

/**
 * The core's basic backend (`BasicJsonSchema.make()`), the default validator, loaded by its
 * `import()` when a server first compiles a raw JSON Schema: a server whose tools are all Effect
 * Schemas never compiles one, and does not load (parse) the basic backend's compiler at start.
 * Same name, same compile, same errors as `BasicJsonSchema.make()`.
 */
const basicBackend = LazyModule.make(() => import("../catalog/BasicJsonSchema.ts").then((BasicJsonSchema) => BasicJsonSchema.make()))
const basicValidator: SchemaValidator["Service"] = SchemaValidator.of({
  name: "basic",
  compile: (schema) => LazyModule.use(basicBackend, (backend) => backend.compile(schema))
})

/**
 * Builds the runtime of a definition. The validator is the application's `SchemaValidator` when it
 * provides one, else the core's basic backend; the dialects are those of the `dialects` option,
 * else the application's registry when provided, else 2026-07-28 only; the executor is the application's `Executor` when provided, else
 * one with the `executor` options; the MRTR keyring is the application's `Keyring` when provided,
 * else an ephemeral one (with a warning on stderr when a round first uses it). With a
 * `SubscriptionHub` in context the server serves `subscriptions/listen` and advertises
 * `listChanged` (and `resources.subscribe`); without one it advertises neither and listen is -32601.
 *
 * Building it may wait for a module that is loaded at first use (the basic backend's compiler when
 * a tool has a raw JSON Schema and no `SchemaValidator` is provided; what observes requests; the
 * 2025-11-25 era's input requests; the listen stream), so build it as a server's Layer is built
 * (`runMain`, `runFork`, `runPromise`), not under `Effect.runSync`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R>(server: McpServer<R>): Layer.Layer<
  ServerRuntime.ServerRuntime,
  Catalog.CatalogError | ConfigurationError,
  Exclude<R, RequestServices>
> =>
  Layer.effect(
    ServerRuntime.ServerRuntime,
    Effect.gen(function*() {
      const options = server.options
      const validator = Option.getOrElse(yield* Effect.serviceOption(SchemaValidator), () => basicValidator)
      const dialects = options.dialects === undefined
        ? Option.getOrElse(yield* Effect.serviceOption(DialectRegistry.DialectRegistry), () => DialectRegistry.defaultRegistry)
        : yield* DialectRegistry.make(options.dialects)
      const duplicate = server.extensions.find((extension, index) =>
        server.extensions.findIndex((other) => other.name === extension.name) !== index
      )
      if (duplicate !== undefined) {
        return yield* new ConfigurationError({ message: `Extension "${duplicate.name}" is added to this server twice` })
      }
      const catalog = yield* Catalog.make(
        server.components,
        options.pageSize === undefined ? undefined : { pageSize: options.pageSize }
      ).pipe(Effect.provideService(SchemaValidator, validator))
      const services = (yield* Effect.context<never>()) as Context.Context<never>
      const policy = Option.getOrUndefined(yield* Effect.serviceOption(AuthorizationPolicy))
      const hub = Option.getOrUndefined(yield* Effect.serviceOption(SubscriptionHub))
      const cache = options.cache ?? {}
      if (policy !== undefined) yield* refusePublicCaching(cache, catalog)
      const keyring = Option.getOrUndefined(yield* Effect.serviceOption(Keyring))
      const executor = Option.getOrElse(yield* Effect.serviceOption(Executor), () => makeExecutor(options.executor))
      return yield* ServerRuntime.make({
        settings: {
          serverInfo: serverInfoOf(options),
          instructions: options.instructions,
          capabilities: capabilitiesOf(options, catalog, hub !== undefined, server.extensions),
          cache,
          logging: options.logging === true,
          progress: { ...defaultProgressLimits, ...options.progress },
          listen: { ...defaultListenLimits, ...options.subscriptions },
          ...(options.clientRequestTimeout === undefined ? {} : { clientRequestTimeout: options.clientRequestTimeout })
        },
        catalog,
        dialects,
        executor,
        services,
        policy,
        extensions: server.extensions,
        ...(keyring === undefined ? {} : { keyring }),
        ...(hub === undefined ? {} : { hub })
      })
    })
  ) as Layer.Layer<ServerRuntime.ServerRuntime, Catalog.CatalogError | ConfigurationError, Exclude<R, RequestServices>>

const build = <R>(
  options: Options,
  components: ReadonlyArray<Catalog.Component>,
  extensions: ReadonlyArray<Extension.Extension<unknown>>
): McpServer<R> => {
  const self = Object.create(Proto)
  self[TypeId] = TypeId
  self.options = options
  self.components = components
  self.extensions = extensions
  self.add = (...more: ReadonlyArray<Catalog.Component>) => build(options, [...components, ...more], extensions)
  self.extend = (extension: Extension.Extension<unknown>) => build(options, components, [...extensions, extension])
  let memoized: Layer.Layer<ServerRuntime.ServerRuntime, Catalog.CatalogError | ConfigurationError, Exclude<R, RequestServices>> | undefined
  Object.defineProperty(self, "layer", { get: () => memoized ??= layer(self as McpServer<R>) })
  return self as McpServer<R>
}

/**
 * A definition with these components added, for a pipe (`server.add(...)` as a function).
 *
 * @example
 * ```ts
 * import { McpServer } from "@snodo/core"
 *
 * const Server = McpServer.make({ name: "calc", version: "1.0.0" }).pipe(McpServer.add(add, greet))
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const add = <const C extends ReadonlyArray<Catalog.Component>>(...components: C) =>
<R>(self: McpServer<R>): McpServer<R | ComponentServices<C[number]>> => self.add(...components)

/**
 * A definition that serves this extension too (`server.extend(extension)` as a function, or with
 * the server first). Adding two extensions of one name fails the server's Layer with a
 * `ConfigurationError`.
 *
 * @example
 * ```ts
 * import { McpServer } from "@snodo/core"
 * import * as Tasks from "@snodo/tasks"
 *
 * const Server = McpServer.make({ name: "jobs", version: "1.0.0" }).pipe(McpServer.extend(Tasks.extension({ tools: {} })))
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const extend: {
  <RX>(extension: Extension.Extension<RX>): <R>(self: McpServer<R>) => McpServer<R | RX>
  <R, RX>(self: McpServer<R>, extension: Extension.Extension<RX>): McpServer<R | RX>
} = dual(2, <R, RX>(self: McpServer<R>, extension: Extension.Extension<RX>): McpServer<R | RX> => self.extend(extension))

/**
 * Starts a server definition.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): McpServer<never> => build(options, [], [])
