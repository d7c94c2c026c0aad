/**
 * The MCP client: one connection to one server, on any {@link ClientTransport}.
 *
 * Connecting negotiates the era: the 2026-07-28 `server/discover` probe first (its result cached
 * for its `ttlMs`), and, when the server does not answer it as a 2026-07-28 server, the
 * 2025-11-25 `initialize` handshake (`notifications/initialized`, the transport's session). The
 * same application code runs on both: requests carry the per-request `_meta` (protocol version,
 * client capabilities, client info) on 2026-07-28; `input_required` rounds (2026-07-28) and the
 * server's own requests (2025-11-25) are answered by the same {@link InputHandlers}.
 *
 * The JSON-RPC work is `@snodo/protocol`'s peer, the one the servers use: numbered outgoing
 * requests with timeouts, the server's requests run in fibers, `notifications/cancelled` both
 * ways. Interrupting a request is cancellation: the server is sent `notifications/cancelled` (and
 * over HTTP the request's connection closes). Every result is checked against its method's entry
 * in the method table (`@snodo/protocol/methods/Methods`): a server that answers the wrong shape
 * is an {@link InvalidResult} naming the method and the path.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpClient, StdioClientTransport } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient
 *   const tools = yield* client.listTools
 *   return yield* client.callTool("add", { a: 1, b: 2 })
 * }).pipe(Effect.provide(McpClient.layer().pipe(
 *   Layer.provide(StdioClientTransport.layerNode({ command: "node", args: ["server.ts", "--stdio"] }))
 * )))
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Fiber, Layer, Option, Predicate, PubSub, Result, Schema, Scope, Stream } from "effect"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import type * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import * as ResultCheck from "@snodo/protocol/methods/ResultCheck"
import { toWire } from "@snodo/protocol/jsonrpc/McpError"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import * as OutgoingRequests from "@snodo/protocol/peer/OutgoingRequests"
import * as Peer from "@snodo/protocol/peer/Peer"
import { SinkClosed } from "@snodo/protocol/peer/RequestSink"
import type * as Completion from "@snodo/protocol/wire/Completion"
import type * as Discover from "@snodo/protocol/wire/Discover"
import * as Meta from "@snodo/protocol/wire/Meta"
import type * as Notifications from "@snodo/protocol/wire/Notifications"
import type * as Prompts from "@snodo/protocol/wire/Prompts"
import type * as Resources from "@snodo/protocol/wire/Resources"
import type * as Tools from "@snodo/protocol/wire/Tools"
import { Transport } from "./ClientTransport.ts"
import * as InputHandlers from "./InputHandlers.ts"
import * as ListenChange from "./ListenChange.ts"
import * as ResultCache from "./internal/resultCache.ts"
import * as TaskHandle from "./TaskHandle.ts"
import * as ToolSpec from "./ToolSpec.ts"
import {
  InvalidResult,
  type McpClientError,
  MissingHandler,
  RpcError,
  ToolError,
  TooManyRounds,
  TransportError
} from "./McpClientError.ts"

/**
 * The revision the client prefers.
 *
 * @category constants
 * @since 0.1.0
 */
export const latestVersion = "2026-07-28"

/**
 * The initialize-era revision the client falls back to.
 *
 * @category constants
 * @since 0.1.0
 */
export const legacyVersion = "2025-11-25"

/**
 * A result object as the server wrote it (`resultType` is `"complete"` for an initialize-era
 * server, which writes none).
 *
 * @category models
 * @since 0.1.0
 */
export type Result = Readonly<Record<string, unknown>> & { readonly resultType: string }

/**
 * A notification the server wrote.
 *
 * @category models
 * @since 0.1.0
 */
export type Notification = ListenChange.Notification

/**
 * Per-request options.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestOptions {
  /** Called with each `notifications/progress` of the request (sets `_meta.progressToken`). */
  readonly onProgress?: (progress: Notifications.ProgressNotificationParams) => Effect.Effect<void>
  /** Extra `_meta` entries. */
  readonly meta?: Readonly<Record<string, unknown>>
  /** `input_required` rounds allowed before {@link TooManyRounds} (default: the client's). */
  readonly maxRounds?: number
  /** Skips the result cache (a fresh answer, which is then cached). */
  readonly fresh?: boolean
}

/**
 * How the client connects.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** `clientInfo` (default `{ name: "snodo-client", version: "0.1.0" }`). */
  readonly clientInfo?: Meta.Implementation
  /** `"auto"` (default: probe, fall back), or one revision only. */
  readonly protocolVersion?: "auto" | typeof latestVersion | typeof legacyVersion
  /**
   * Send the `server/discover` probe when connecting (default true). Without it the client speaks
   * 2026-07-28 at once and knows nothing of the server until asked (`discover`): for tests that
   * count what the server wrote.
   */
  readonly probe?: boolean
  /** How long a request may wait for its answer (default 5 minutes). */
  readonly requestTimeout?: Duration.Input
  /** How long the `server/discover` probe waits before falling back (default 10 seconds). */
  readonly probeTimeout?: Duration.Input
  /** `input_required` rounds allowed per request (default 10). */
  readonly maxRounds?: number
  /** Honour `ttlMs` of lists, reads and discover results (default true). */
  readonly cache?: boolean
  /**
   * Declare the Tasks extension on 2026-07-28 (default true): the server may then answer
   * `tools/call` with a task, which `callTool` waits out and `startTool` hands back.
   */
  readonly tasks?: boolean
  /**
   * Extensions the client declares in its capabilities (`capabilities.extensions`), by identifier:
   * in every request's `_meta` on 2026-07-28, in `initialize` on 2025-11-25. E.g.
   * `Apps.extensions` to tell a server the client renders MCP Apps views.
   */
  readonly extensions?: Readonly<Record<string, unknown>>
}

/**
 * The four paginated lists, by the kind of entry.
 *
 * @category models
 * @since 0.1.0
 */
export interface Lists {
  readonly tools: Tools.Tool
  readonly resources: Resources.Resource
  readonly resourceTemplates: Resources.ResourceTemplate
  readonly prompts: Prompts.Prompt
}

/**
 * What the server said about itself when the client connected.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerDescription {
  /** `"2026-07-28"`, or the revision `initialize` negotiated. */
  readonly protocolVersion: string
  readonly era: "modern" | "legacy"
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly serverInfo: Meta.Implementation | undefined
  readonly instructions: string | undefined
}

/**
 * What `startTool` got: the result, or a task.
 *
 * @category models
 * @since 0.1.0
 */
export type Started =
  | { readonly _tag: "Complete"; readonly result: Tools.CallToolResult }
  | { readonly _tag: "Task"; readonly task: TaskHandle.TaskHandle }

/**
 * @category models
 * @since 0.1.0
 */
export interface Client {
  /** The negotiated revision, the server's capabilities and info. */
  readonly server: ServerDescription
  /** Sends a request and follows its `input_required` rounds to the complete result. */
  readonly request: (method: string, params?: Readonly<Record<string, unknown>>, options?: RequestOptions) => Effect.Effect<Result, McpClientError>
  /**
   * One round trip, as given: no input rounds, no cache; `_meta` is `options.meta` when given
   * (replacing the client's own), else the client's. For tests of a server's exact answers.
   */
  readonly roundTrip: (
    method: string,
    params?: Readonly<Record<string, unknown>>,
    options?: { readonly meta?: Readonly<Record<string, unknown>> }
  ) => Effect.Effect<Result, McpClientError>
  /** The `_meta` the client sends on 2026-07-28 (protocol version, capabilities, client info). */
  readonly meta: Readonly<Record<string, unknown>>
  /** Sends a notification. */
  readonly notify: (method: string, params?: Readonly<Record<string, unknown>>) => Effect.Effect<void, TransportError>
  /** `server/discover` (2026-07-28), cached for its `ttlMs`. */
  readonly discover: Effect.Effect<Discover.DiscoverResult, McpClientError>
  /**
   * `tools/call` by name: the complete result, or, when the server made a task of it, a handle
   * ({@link TaskHandle}).
   */
  readonly startTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: RequestOptions
  ) => Effect.Effect<Started, McpClientError>
  /**
   * `tools/call` by name: the raw `CallToolResult` (an `isError` result is a success here); a
   * task the server made of it is waited out.
   */
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: RequestOptions
  ) => Effect.Effect<Tools.CallToolResult, McpClientError>
  /**
   * `tools/call` through a {@link ToolSpec}: the input encoded, `structuredContent` decoded to
   * the output type (the whole `CallToolResult` for a spec without `output`); an `isError` result
   * fails with the declared failure (decoded from `structuredContent`, else from the text content
   * as JSON, else from the text itself), or with `ToolError`, whose message carries the text.
   */
  readonly call: <I extends ToolSpec.Pure, O extends ToolSpec.Pure = never, F extends ToolSpec.Pure = never>(
    spec: ToolSpec.ToolSpec<I, O, F>,
    input: I["Type"],
    options?: RequestOptions
  ) => Effect.Effect<ToolSpec.Output<O>, McpClientError | ToolError | F["Type"]>
  /** Every entry of a paginated list, page by page. */
  readonly list: <K extends keyof Lists>(kind: K) => Stream.Stream<Lists[K], McpClientError>
  readonly listTools: Effect.Effect<ReadonlyArray<Tools.Tool>, McpClientError>
  readonly listResources: Effect.Effect<ReadonlyArray<Resources.Resource>, McpClientError>
  readonly listResourceTemplates: Effect.Effect<ReadonlyArray<Resources.ResourceTemplate>, McpClientError>
  readonly listPrompts: Effect.Effect<ReadonlyArray<Prompts.Prompt>, McpClientError>
  readonly readResource: (uri: string, options?: RequestOptions) => Effect.Effect<Resources.ReadResourceResult, McpClientError>
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: RequestOptions
  ) => Effect.Effect<Prompts.GetPromptResult, McpClientError>
  readonly complete: (
    ref: Readonly<Record<string, unknown>>,
    argument: { readonly name: string; readonly value: string },
    context?: Readonly<Record<string, string>>
  ) => Effect.Effect<Completion.CompleteResult, McpClientError>
  readonly ping: Effect.Effect<void, McpClientError>
  /**
   * Opens a listen stream (2026-07-28 `subscriptions/listen`; on 2025-11-25, `resources/subscribe`
   * and the session's change notifications): once the server acknowledged it, the changes it
   * delivers, typed ({@link ListenChange.ListenChange}). Closing the scope ends it (the server sees
   * the request cancelled).
   */
  readonly listen: (filter: Notifications.SubscriptionFilter & { readonly taskIds?: ReadonlyArray<string> }) => Effect.Effect<Stream.Stream<ListenChange.ListenChange, McpClientError>, McpClientError, Scope.Scope>
  /**
   * The next change a listen stream delivers, in one call: opens the stream (acknowledged when
   * this returns, so what the application does next is seen) and hands back the wait for its
   * first change. The stream closes with the scope, or once the change came.
   *
   * ```ts
   * const next = yield* client.nextChange({ toolsListChanged: true })
   * yield* client.callTool("add_tool")
   * const change = yield* next // ToolsListChanged
   * ```
   */
  readonly nextChange: (
    filter: Notifications.SubscriptionFilter & { readonly taskIds?: ReadonlyArray<string> }
  ) => Effect.Effect<Effect.Effect<ListenChange.ListenChange, McpClientError>, McpClientError, Scope.Scope>
  /** Every notification the server writes, from the moment the stream is run. */
  readonly notifications: Stream.Stream<Notification>
}

/** The method that lists each kind of entry. */
const listMethods: { readonly [K in keyof Lists]: Method.AnyRequest } = {
  tools: Methods.ToolsList,
  resources: Methods.ResourcesList,
  resourceTemplates: Methods.ResourcesTemplatesList,
  prompts: Methods.PromptsList
}

const record = (value: unknown): Readonly<Record<string, unknown>> => Predicate.isObject(value) ? value : {}

/** The versions a -32022 (UnsupportedProtocolVersion) refusal names. */
const supportedOf = (cause: Cause.Cause<McpClientError>): ReadonlyArray<unknown> | undefined => {
  const error = Cause.findErrorOption(cause)
  if (Option.isNone(error) || error.value._tag !== "RpcError" || error.value.code !== -32022) return undefined
  const supported = record(error.value.data)["supported"]
  return Array.isArray(supported) ? supported : undefined
}

/** A listed tool a client must not call: its `x-mcp-header` declarations break the rules. */
const hasValidHeaders = (listed: Tools.Tool): boolean => !("_tag" in HeaderParams.declarations(listed.inputSchema as never))

/** The changes of a stream of notifications, typed; other notifications (the acknowledgement) are left out. */
const typed = <E>(notifications: Stream.Stream<Notification, E>): Stream.Stream<ListenChange.ListenChange, E> =>
  Stream.filterMap(notifications, (notification) => {
    const change = ListenChange.fromNotification(notification)
    return change === undefined ? Result.fail(notification) : Result.succeed(change)
  })

const subscriptionIdOf = (notification: Notification): unknown => record(notification.params["_meta"])[Meta.SubscriptionIdKey]

/** Whether an initialize-era change notification is one the listen filter asked for (the table's `listenKey`). */
const wanted = (filter: Notifications.SubscriptionFilter, notification: Notification): boolean => {
  const key = Methods.findNotification(notification.method)?.listenKey
  if (key === undefined) return false
  if (key === "resourceSubscriptions") return (filter.resourceSubscriptions ?? []).includes(String(notification.params["uri"]))
  return (filter as Readonly<Record<string, unknown>>)[key] === true
}

/** The result checks of the table's requests, compiled at their first use. */
const checks = new Map<Method.AnyRequest, ResultCheck.Check>()
const checkOf = (method: Method.AnyRequest): ResultCheck.Check => {
  let check = checks.get(method)
  if (check === undefined) {
    check = ResultCheck.make(method)
    checks.set(method, check)
  }
  return check
}

/**
 * Connects, in the current scope, through the {@link Transport} in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}): Effect.fn.Return<Client, McpClientError, Transport | Scope.Scope> {
  const transport = yield* Transport
  const handlers = yield* InputHandlers.InputHandlers
  const scope = yield* Scope.Scope
  const services = yield* Effect.context<never>()
  const runFork = Effect.runForkWith(services)
  const clientInfo = options.clientInfo ?? { name: "snodo-client", version: "0.1.0" }
  const handled = InputHandlers.capabilities(handlers)
  const capabilities = options.extensions === undefined ? handled : { ...handled, extensions: options.extensions }
  const modernCapabilities = options.tasks === false
    ? capabilities
    : { ...capabilities, extensions: { [TaskHandle.extensionId]: {}, ...options.extensions } }
  const timeout = options.requestTimeout ?? "5 minutes"
  const maxRounds = options.maxRounds ?? 10
  const caching = options.cache ?? true

  const outgoing = OutgoingRequests.make({ maxPending: 1024 })
  const notifications = yield* PubSub.unbounded<Notification>()
  const progress = new Map<string, (progress: Notifications.ProgressNotificationParams) => Effect.Effect<void>>()
  const cache = ResultCache.make()
  let era: "modern" | "legacy" = "modern"
  let ended: TransportError | undefined
  let nextProgress = 0

  const onNotification = (message: Envelope.Notification) => {
    const notification: Notification = { method: message.method, params: message.params }
    if (message.method === Methods.Progress.name) {
      const handler = progress.get(String(message.params["progressToken"]))
      if (handler !== undefined) runFork(handler(message.params as unknown as Notifications.ProgressNotificationParams))
    }
    for (const stale of Methods.findNotification(message.method)?.invalidates ?? []) cache.dropMethod(stale)
    PubSub.publishUnsafe(notifications, notification)
  }

  /** The server's own requests (2025-11-25): answered by the same handlers as input rounds. */
  const onRequest = (request: Envelope.Request): Effect.Effect<string> => {
    if (request.method === Methods.Ping.name) return Effect.succeed(Encoder.result(request.id, {}))
    return InputHandlers.answer(handlers, request.method, request.params).pipe(
      Effect.map((result) => Encoder.result(request.id, result)),
      Effect.catch((error) =>
        Effect.succeed(Encoder.error(request.id, { code: error._tag === "MissingHandler" ? -32601 : -32602, message: error.message }))
      )
    )
  }

  let peer: Peer.Peer | undefined
  const channel = yield* transport.open((frame) => peer?.receiveUnsafe(frame))
  const sink = { write: (frame: string) => Effect.mapError(channel.write(frame), (error) => new SinkClosed({ message: error.message })) }
  peer = yield* Peer.make({
    sink,
    onRequest,
    reject: (id, error) => Encoder.error(id, toWire(error)),
    onNotification,
    outgoing
  })
  yield* Effect.forkIn(
    Effect.catch(channel.closed, (error) =>
      Effect.sync(() => {
        ended = error
        outgoing.close()
      })),
    scope
  )
  yield* Scope.addFinalizer(scope, Effect.sync(() => outgoing.close()))

  const failureOf = (method: string) => (error: OutgoingRequests.OutgoingRequestError): McpClientError => {
    switch (error.reason) {
      case "Refused":
        return new RpcError({
          method,
          code: error.error?.code ?? -32603,
          message: error.error?.message ?? error.message,
          ...(error.error?.data === undefined ? {} : { data: error.error.data })
        })
      case "Timeout":
        return new TransportError({ reason: "Timeout", message: error.message })
      default:
        return ended ?? new TransportError({ reason: "Closed", message: error.message })
    }
  }

  const metaFor = (requestOptions: RequestOptions | undefined, token: string | undefined): Record<string, unknown> => ({
    ...(era === "modern"
      ? {
        [Meta.ProtocolVersionKey]: latestVersion,
        [Meta.ClientCapabilitiesKey]: modernCapabilities,
        [Meta.ClientInfoKey]: clientInfo
      }
      : {}),
    ...requestOptions?.meta,
    ...(token === undefined ? {} : { progressToken: token })
  })

  /** One round trip: the server's result as written, or its error. */
  const once = (
    method: string,
    params: Readonly<Record<string, unknown>>,
    requestOptions?: RequestOptions,
    sendOptions?: OutgoingRequests.SendOptions
  ): Effect.Effect<Result, McpClientError> =>
    Effect.suspend(() => {
      const onProgress = requestOptions?.onProgress
      const token = onProgress === undefined ? undefined : `progress-${++nextProgress}`
      if (token !== undefined && onProgress !== undefined) progress.set(token, onProgress)
      return outgoing.send(sink, method, { ...params, _meta: metaFor(requestOptions, token) }, timeout, sendOptions).pipe(
        Effect.mapError(failureOf(method)),
        Effect.flatMap((result) => checked(method, result)),
        Effect.ensuring(Effect.sync(() => token !== undefined && progress.delete(token)))
      )
    })

  /**
   * The server's result, checked against its method's entry in the table (a method the table does
   * not know, an application's own, is only checked to be an object); `resultType` is `"complete"`
   * when the server wrote none.
   */
  const checked = (method: string, result: unknown): Effect.Effect<Result, InvalidResult> => {
    const entry = Methods.findRequest(method)
    const mismatch = entry === undefined
      ? (Predicate.isObject(result) ? undefined : { path: "", message: "the result is not an object" })
      : checkOf(entry)(result, era === "modern" ? latestVersion : legacyVersion)
    if (mismatch !== undefined) {
      return Effect.fail(
        new InvalidResult({
          method,
          ...(mismatch.path === "" ? {} : { path: mismatch.path }),
          message: `The server's ${method} result does not match the protocol${mismatch.path === "" ? "" : ` at ${mismatch.path}`}: ${mismatch.message}`
        })
      )
    }
    const written = result as Readonly<Record<string, unknown>>
    return Effect.succeed((typeof written["resultType"] === "string" ? written : { ...written, resultType: "complete" }) as Result)
  }

  const answerAll = (requests: Readonly<Record<string, unknown>>) =>
    Effect.forEach(Object.entries(requests), ([key, inputRequest]) => {
      const { method, params } = record(inputRequest)
      return Effect.map(InputHandlers.answer(handlers, String(method), record(params)), (response) => [key, response] as const)
    }).pipe(Effect.map((entries) => Object.fromEntries(entries)))

  /** A -32021 refusal names capabilities the application has no handler for. */
  const missingHandler = (error: McpClientError): McpClientError => {
    if (error._tag !== "RpcError" || error.code !== -32021) return error
    const required = record(error.data)["requiredCapabilities"]
    return new MissingHandler({
      method: error.method,
      message: `The server needs client capabilities the application gave no handler for: ${JSON.stringify(required ?? {})}`,
      requiredCapabilities: required
    })
  }

  const rounds = (method: string, params: Readonly<Record<string, unknown>>, requestOptions?: RequestOptions) =>
    Effect.mapError(roundsOf(method, params, requestOptions), missingHandler)

  const roundsOf = (method: string, params: Readonly<Record<string, unknown>>, requestOptions?: RequestOptions) =>
    Effect.gen(function*() {
      const allowed = requestOptions?.maxRounds ?? maxRounds
      let retry: Record<string, unknown> = {}
      for (let round = 1;; round++) {
        const result = yield* once(method, { ...params, ...retry }, requestOptions)
        if (result.resultType !== "input_required") return result
        if (round > allowed) {
          return yield* new TooManyRounds({ method, rounds: allowed, message: `${method} still asked for input after ${allowed} rounds` })
        }
        const responses = yield* answerAll(record(result["inputRequests"]))
        const state = result["requestState"]
        retry = {
          ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
          ...(typeof state === "string" ? { requestState: state } : {})
        }
      }
    })

  /** A cacheable request: served from the cache while its `ttlMs` lasts. */
  const cached = (method: string, params: Readonly<Record<string, unknown>>, requestOptions?: RequestOptions) =>
    Effect.gen(function*() {
      const key = ResultCache.keyOf(method, params)
      const now = yield* Clock.currentTimeMillis
      const hit = caching && requestOptions?.fresh !== true ? cache.get(key, now) : undefined
      if (hit !== undefined) return hit
      const result = yield* rounds(method, params, requestOptions)
      if (caching) cache.put(key, result, now)
      return result
    })

  const request: Client["request"] = (method, params = {}, requestOptions) => rounds(method, params, requestOptions)

  const notify: Client["notify"] = (method, params = {}) => channel.write(Encoder.notification(method, params))

  const discover = cached(Methods.ServerDiscover.name, {}) as Effect.Effect<Discover.DiscoverResult, McpClientError>

  // --- the era ---
  const negotiate = Effect.gen(function*() {
    if (options.probe === false && options.protocolVersion !== legacyVersion) {
      return { protocolVersion: latestVersion, era: "modern", capabilities: {}, serverInfo: undefined, instructions: undefined } satisfies ServerDescription
    }
    const wantLegacy = options.protocolVersion === legacyVersion
    if (!wantLegacy) {
      const probeOnce = Effect.exit(Effect.timeoutOrElse(discover, {
        duration: options.probeTimeout ?? "10 seconds",
        orElse: () => Effect.fail(new TransportError({ reason: "Timeout", message: "server/discover got no answer" }))
      }))
      let probe = yield* probeOnce
      // -32022 naming 2026-07-28 among the supported versions: a retry is what the spec asks for
      if (Exit.isFailure(probe) && supportedOf(probe.cause)?.includes(latestVersion) === true) probe = yield* probeOnce
      // a result without `supportedVersions` (an initialize-era server's generic `{}`) is not a 2026-07-28 answer
      if (Exit.isSuccess(probe) && Array.isArray(probe.value.supportedVersions) && probe.value.supportedVersions.includes(latestVersion)) {
        const result = probe.value
        const info = record(result._meta)[Meta.ServerInfoKey] ?? record(result)["serverInfo"]
        return {
          protocolVersion: latestVersion,
          era: "modern",
          capabilities: result.capabilities,
          serverInfo: Predicate.isObject(info) ? info as unknown as Meta.Implementation : undefined,
          instructions: result.instructions
        } satisfies ServerDescription
      }
      if (options.protocolVersion === latestVersion) {
        return yield* Exit.isFailure(probe)
          ? Effect.failCause(probe.cause)
          : Effect.fail(new RpcError({ method: Methods.ServerDiscover.name, code: -32022, message: "The server does not support 2026-07-28" }))
      }
      if (Exit.isFailure(probe) && ended !== undefined) return yield* Effect.fail(ended)
    }
    era = "legacy"
    const result = yield* once(Methods.Initialize.name, { protocolVersion: legacyVersion, capabilities, clientInfo })
    const version = typeof result["protocolVersion"] === "string" ? result["protocolVersion"] : legacyVersion
    channel.negotiated?.(version)
    yield* notify(Methods.Initialized.name)
    const info = result["serverInfo"]
    const instructions = result["instructions"]
    return {
      protocolVersion: version,
      era: "legacy",
      capabilities: record(result["capabilities"]),
      serverInfo: Predicate.isObject(info) ? info as unknown as Meta.Implementation : undefined,
      instructions: typeof instructions === "string" ? instructions : undefined
    } satisfies ServerDescription
  })
  const server: ServerDescription = yield* negotiate

  // --- typed calls ---
  const driver: TaskHandle.Driver = {
    request: (method, params) => request(method, params),
    answer: answerAll,
    changed: (taskId) =>
      Effect.scoped(Effect.flatMap(PubSub.subscribe(notifications), (subscription) =>
        Stream.runHead(Stream.filter(
          Stream.fromSubscription(subscription),
          (notification) => notification.method === Methods.TaskStatus.name && notification.params["taskId"] === taskId
        )))).pipe(Effect.asVoid),
    watch: (taskId) => Effect.ignore(listen({ taskIds: [taskId] }))
  }

  const startTool: Client["startTool"] = (name, args = {}, requestOptions) =>
    Effect.map(request(Methods.ToolsCall.name, { name, arguments: args }, requestOptions), (result): Started =>
      result.resultType === "task"
        ? { _tag: "Task", task: TaskHandle.make(driver, result) }
        : { _tag: "Complete", result: result as Tools.CallToolResult })

  const callTool: Client["callTool"] = (name, args = {}, requestOptions) =>
    Effect.flatMap(startTool(name, args, requestOptions), (started) => started._tag === "Task" ? started.task.await : Effect.succeed(started.result))

  const call: Client["call"] = (spec, input, requestOptions) =>
    Effect.gen(function*() {
      const method = `tools/call ${spec.name}`
      const args = yield* Effect.mapError(
        Schema.encodeUnknownEffect(spec.input as ToolSpec.Pure)(input),
        (error) => new InvalidResult({ method, message: `The input does not match the tool's input schema: ${error.message}` })
      )
      const result = yield* callTool(spec.name, record(args), requestOptions)
      if (result.isError === true) {
        if (spec.failure !== undefined) {
          const failure = yield* ToolSpec.decodeFailure(spec.failure as ToolSpec.Pure, result)
          if (Option.isSome(failure)) return yield* Effect.fail(failure.value)
        }
        const said = ToolSpec.textOf(result)
        return yield* new ToolError({ name: spec.name, message: `${spec.name} failed${said === "" ? "" : `: ${said}`}`, result })
      }
      if (spec.output === undefined) return result
      return yield* Effect.mapError(
        Schema.decodeUnknownEffect(spec.output as ToolSpec.Pure)(result.structuredContent),
        (error) => new InvalidResult({ method, message: `structuredContent does not match the output schema: ${error.message}` })
      )
    }) as never // the CallToolResult exactly when the spec has no output schema: ToolSpec.Output<O>, which the body cannot name

  const list = <K extends keyof Lists>(kind: K): Stream.Stream<Lists[K], McpClientError> =>
    Stream.paginate(undefined as string | undefined, (cursor) =>
      Effect.map(cached(listMethods[kind].name, cursor === undefined ? {} : { cursor }), (page) => {
        const listed = (Array.isArray(page[kind]) ? page[kind] : []) as ReadonlyArray<Lists[K]>
        const next = page["nextCursor"]
        let items = listed
        if (kind === "tools") {
          const tools = (listed as ReadonlyArray<Tools.Tool>).filter(hasValidHeaders)
          channel.toolsListed?.(tools)
          items = tools as ReadonlyArray<unknown> as ReadonlyArray<Lists[K]>
        }
        return [
          items,
          typeof next === "string" ? Option.some<string | undefined>(next) : Option.none()
        ] as const
      }))
  const all = <K extends keyof Lists>(kind: K) => Stream.runCollect(list(kind))

  function listen(filter: Notifications.SubscriptionFilter & { readonly taskIds?: ReadonlyArray<string> }) {
    return listenTo(filter)
  }
  const listenTo: Client["listen"] = (filter) =>
    Effect.gen(function*() {
      const subscription = yield* PubSub.subscribe(notifications)
      const incoming = Stream.fromSubscription(subscription)
      if (era === "legacy") {
        yield* Effect.forEach(filter.resourceSubscriptions ?? [], (uri) => request(Methods.ResourcesSubscribe.name, { uri }), { discard: true })
        return typed(Stream.filter(incoming, (notification) => wanted(filter, notification)))
      }
      let id: string | undefined
      const open = yield* Effect.forkScoped(once(Methods.SubscriptionsListen.name, { notifications: filter }, undefined, { onId: (sent) => id = sent }))
      const mine = Stream.filter(incoming, (notification) => subscriptionIdOf(notification) === id)
      // The stream is open once acknowledged (or the request failed first).
      const acknowledged = yield* Effect.raceFirst(
        Effect.map(Stream.runHead(Stream.filter(mine, (n) => n.method === Methods.SubscriptionsAcknowledged.name)), () => undefined),
        Fiber.join(open)
      )
      void acknowledged
      return typed(mine).pipe(Stream.interruptWhen(Fiber.join(open)))
    })

  const nextChange: Client["nextChange"] = (filter) =>
    Effect.gen(function*() {
      const changes = yield* listenTo(filter)
      const first = yield* Effect.forkScoped(Stream.runHead(changes))
      return Effect.flatMap(Fiber.join(first), (change) =>
        Option.isSome(change)
          ? Effect.succeed(change.value)
          : Effect.fail(new TransportError({ reason: "Closed", message: "The listen stream ended before a change came" })))
    })

  return {
    server,
    request,
    startTool,
    roundTrip: (method, params = {}, roundTripOptions) =>
      roundTripOptions?.meta === undefined
        ? once(method, params)
        : Effect.suspend(() =>
          outgoing.send(sink, method, { ...params, _meta: roundTripOptions.meta }, timeout).pipe(
            Effect.mapError(failureOf(method)),
            Effect.map((result) => (Predicate.isObject(result) ? result : {}) as Result)
          )
        ),
    meta: metaFor(undefined, undefined),
    notify,
    discover,
    callTool,
    call,
    list,
    listTools: all("tools"),
    listResources: all("resources"),
    listResourceTemplates: all("resourceTemplates"),
    listPrompts: all("prompts"),
    readResource: (uri, requestOptions) =>
      cached(Methods.ResourcesRead.name, { uri }, requestOptions) as Effect.Effect<Resources.ReadResourceResult, McpClientError>,
    getPrompt: (name, args = {}, requestOptions) =>
      request(Methods.PromptsGet.name, { name, arguments: args }, requestOptions) as Effect.Effect<Prompts.GetPromptResult, McpClientError>,
    complete: (ref, argument, context) =>
      request(
        Methods.CompletionComplete.name,
        context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } }
      ) as Effect.Effect<Completion.CompleteResult, McpClientError>,
    ping: Effect.asVoid(request(Methods.Ping.name)),
    listen,
    nextChange,
    notifications: Stream.unwrap(Effect.map(PubSub.subscribe(notifications), Stream.fromSubscription))
  }
})

/**
 * The client as a service.
 *
 * @category services
 * @since 0.1.0
 */
export class McpClient extends Context.Service<McpClient, Client>()("@snodo/client/McpClient") {
  /** A client connected through the {@link Transport} in context, for the Layer's lifetime. */
  static readonly layer = (options?: Options): Layer.Layer<McpClient, McpClientError, Transport> => Layer.effect(McpClient, make(options))
  /** `ToolSpec.make`: a tool's typed contract for `call`. */
  static readonly tool: typeof ToolSpec.make = ToolSpec.make
}
