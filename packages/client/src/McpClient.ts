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
 * The client holds against a hostile server as the server does against a client: the server's own
 * requests answered at once are capped (`maxServerRequests`, the rest refused busy), frames that
 * are not JSON-RPC are counted (`maxInvalidFrames`, then the connection ends) and refused through
 * one bounded writer, an answer the strict parser refuses ends its request at once, listen
 * streams and `notifications` readers hold bounded buffers, questions per round and rounds per
 * task are bounded, and every wait (connect, probe, request, task) is bounded and named in its
 * error. docs/reliability.md lists each bound with its default.
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
import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Predicate, PubSub, Queue, Result, Schema, Scope, Stream } from "effect"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import type * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import * as ResultCheck from "@snodo/protocol/methods/ResultCheck"
import { type McpError, toWire } from "@snodo/protocol/jsonrpc/McpError"
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
import { idsIn, preview } from "./internal/frames.ts"
import { askedKeys, declares, honours } from "./internal/listenFilter.ts"
import * as ListenChange from "./ListenChange.ts"
import * as ResultCache from "./internal/resultCache.ts"
import * as TaskHandle from "./TaskHandle.ts"
import * as ToolSpec from "./ToolSpec.ts"
import {
  InvalidResult,
  type McpClientError,
  MissingHandler,
  Overflow,
  RpcError,
  ToolError,
  TooManyRounds,
  TransportError,
  Unsupported
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
  /** How long `callTool` waits for a task the server made of the call (default: the client's `taskTimeout`). */
  readonly taskTimeout?: Duration.Input
}

/**
 * How a listen stream buffers changes the application has not read yet.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenOptions {
  /** Changes held for the application (default the client's `listenBuffer`, 64). */
  readonly buffer?: number
  /**
   * What a full buffer does with one more change: `"dropOldest"` (default: the stream goes on
   * with the newest changes) or `"fail"` (the stream fails with {@link Overflow}).
   */
  readonly overflow?: "dropOldest" | "fail"
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
  /**
   * How long a request may wait for its answer (default 5 minutes). Listen streams are not
   * requests that end: they live until the application or the server ends them.
   */
  readonly requestTimeout?: Duration.Input
  /** How long the `server/discover` probe waits before falling back (default 10 seconds). */
  readonly probeTimeout?: Duration.Input
  /**
   * How long connecting (the probe, the fallback `initialize`) may take in all (default 2 minutes:
   * generous, for a cold process on a loaded machine; a server that answers with an error fails
   * at once).
   */
  readonly connectTimeout?: Duration.Input
  /** `input_required` rounds allowed per request, and `tasks/update` rounds per task (default 10). */
  readonly maxRounds?: number
  /** Questions (`inputRequests`) one round may ask (default 32); more fail with `InvalidResult`. */
  readonly maxInputRequests?: number
  /** How long `callTool` waits for a task the server made of the call before cancelling it (default 1 hour). */
  readonly taskTimeout?: Duration.Input
  /**
   * The server's own requests (2025-11-25 elicitation, sampling, roots, ping) answered at once
   * (default 64); more are refused with -32603 "busy" until one is answered.
   */
  readonly maxServerRequests?: number
  /**
   * Frames the server may write that are not JSON-RPC (or that the strict parser refuses) before
   * the client ends the connection with `TransportError` `Protocol` (default 16).
   */
  readonly maxInvalidFrames?: number
  /** Notifications held for each reader of `notifications` (default 1024; the oldest go first). */
  readonly notificationBuffer?: number
  /** Changes each listen stream holds for the application (default 64; see {@link ListenOptions}). */
  readonly listenBuffer?: number
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
  readonly listen: (
    filter: Notifications.SubscriptionFilter & { readonly taskIds?: ReadonlyArray<string> },
    options?: ListenOptions
  ) => Effect.Effect<Stream.Stream<ListenChange.ListenChange, McpClientError>, McpClientError, Scope.Scope>
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

const subscriptionIdOf = (notification: Notification): unknown => record(notification.params["_meta"])[Meta.SubscriptionIdKey]

/** Whether an initialize-era change notification is one the listen filter asked for (the table's `listenKey`). */
const wanted = (filter: Notifications.SubscriptionFilter, notification: Notification): boolean => {
  const key = Methods.findNotification(notification.method)?.listenKey
  if (key === undefined) return false
  if (key === "resourceSubscriptions") return (filter.resourceSubscriptions ?? []).includes(String(notification.params["uri"]))
  return (filter as Readonly<Record<string, unknown>>)[key] === true
}

/** How many questions an `inputRequests` object holds (counted without copying its keys). */
const questionCount = (inputRequests: object): number => {
  let count = 0
  for (const key in inputRequests) if (Object.hasOwn(inputRequests, key)) count++
  return count
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
 * Whether a failed probe is an answer (the server said something: an HTTP status, a JSON-RPC
 * error, a frame that is not one): the client falls back to `initialize` at once. No answer in time
 * falls back too; a connection that failed (refused, exited) does not.
 */
const probeAnswered = (error: McpClientError): boolean =>
  error._tag !== "TransportError" ||
  error.reason === "Timeout" || error.reason === "Protocol" || error.reason === "TooLarge" ||
  (error.reason === "Http" && error.status !== undefined)

/** The same error with another message. */
const withMessage = (error: McpClientError, message: string): McpClientError => {
  switch (error._tag) {
    case "RpcError":
      return new RpcError({ method: error.method, code: error.code, message, ...(error.data === undefined ? {} : { data: error.data }) })
    case "TransportError":
      return new TransportError({
        reason: error.reason,
        message,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.exitCode === undefined ? {} : { exitCode: error.exitCode })
      })
    default:
      return error
  }
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
  /** The request timeout in milliseconds, read once (not per request). */
  const timeoutMillis = Duration.toMillis(Duration.fromInputUnsafe(timeout))
  const maxRounds = options.maxRounds ?? 10
  const maxInputRequests = options.maxInputRequests ?? 32
  const maxServerRequests = options.maxServerRequests ?? 64
  const maxInvalidFrames = options.maxInvalidFrames ?? 16
  const notificationBuffer = options.notificationBuffer ?? 1024
  const listenBuffer = options.listenBuffer ?? 64
  const taskTimeout = options.taskTimeout ?? "1 hour"
  const caching = options.cache ?? true

  const outgoing = OutgoingRequests.make({ maxPending: 1024 })
  // Each reader of `notifications` holds at most `notificationBuffer` of them (the oldest go first).
  const notifications = yield* PubSub.sliding<Notification>(notificationBuffer)
  /** The open listen streams, each with a bounded buffer of its own. */
  const listeners = new Set<(notification: Notification) => void>()
  const progress = new Map<string, (progress: Notifications.ProgressNotificationParams) => Effect.Effect<void>>()
  const cache = ResultCache.make()
  let era: "modern" | "legacy" = "modern"
  let ended: TransportError | undefined
  let nextProgress = 0
  /** The requests waiting for their answer, by id: their method. */
  const pending = new Map<string, string>()
  /** Requests the transport (or a refused frame) failed, by id: the reason, read once the request ends. */
  const failures = new Map<string, TransportError>()
  let label = ""
  /** Who the client talks to and in which era, for messages: " (node server.ts; 2026-07-28)". */
  const where = () => ` (${label === "" ? "" : `${label}; `}${era === "modern" ? latestVersion : legacyVersion})`

  const onNotification = (message: Envelope.Notification) => {
    const notification: Notification = { method: message.method, params: message.params }
    if (message.method === Methods.Progress.name) {
      const handler = progress.get(String(message.params["progressToken"]))
      if (handler !== undefined) runFork(handler(message.params as unknown as Notifications.ProgressNotificationParams))
    }
    for (const stale of Methods.findNotification(message.method)?.invalidates ?? []) cache.dropMethod(stale)
    PubSub.publishUnsafe(notifications, notification)
    for (const listener of listeners) listener(notification)
  }

  // --- what the server sends that is not an answer: bounded ---
  /**
   * Refusals (frames that are not JSON-RPC, the server's requests past `maxServerRequests`) wait
   * here for the one fiber that writes them, with the channel's backpressure; a server that does
   * not read loses the refusals past 1024, never the client's memory.
   */
  const refusals = yield* Queue.dropping<string>(1024)
  let invalidFrames = 0
  let firstInvalid: string | undefined

  /** Ends the connection: every request waiting and every later one fail with `error`. */
  const endWith = (error: TransportError): void => {
    if (ended !== undefined) return
    ended = error
    outgoing.close()
    channel.end?.()
  }

  /** Fails the request with this id with the transport's reason (it fails at once, not at its timeout). */
  const failRequest = (requestId: string | number, error: TransportError): void => {
    const id = String(requestId)
    if (!pending.has(id)) return
    failures.set(id, error)
    outgoing.receive({ _tag: "Response", id, result: undefined, error: { code: -32603, message: error.message } })
  }

  /** A frame refused (not JSON-RPC, strict parsing, a duplicate id): counted, answered, and the request it answers ended. */
  const refuse = (id: Envelope.RequestId | null, error: McpError, frame: string): void => {
    if (ended !== undefined) return
    invalidFrames++
    firstInvalid ??= preview(frame)
    for (const answered of idsIn(frame)) {
      const method = pending.get(answered)
      if (method === undefined) continue
      failRequest(answered, new TransportError({
        reason: "Protocol",
        message: `The server's answer to ${method} was refused (${error.message})${where()}: ${preview(frame)}`
      }))
      break
    }
    if (invalidFrames > maxInvalidFrames) {
      return endWith(new TransportError({
        reason: "Protocol",
        message: `The server wrote ${invalidFrames} frames that are not valid JSON-RPC (maxInvalidFrames ${maxInvalidFrames})${where()}; ` +
          `the first: ${firstInvalid}; the last: ${preview(frame)}. A server writes only JSON-RPC to stdout (logs go to stderr).`
      }))
    }
    Queue.offerUnsafe(refusals, Encoder.error(id, toWire(error)))
  }

  /** A response that answers nothing this client waits for: a null-id error answers the only request waiting, if one is. */
  const stray = (response: Envelope.Response): boolean => {
    if (response.id === undefined && response.error !== undefined && pending.size === 1) {
      const [only] = pending.keys()
      if (only !== undefined) return outgoing.receive({ ...response, id: only })
    }
    return false
  }

  /** The server's own requests (2025-11-25): answered by the same handlers as input rounds, at most `maxServerRequests` at once. */
  let serving = 0
  const onRequest = (request: Envelope.Request): Effect.Effect<undefined> => {
    if (serving >= maxServerRequests) {
      Queue.offerUnsafe(refusals, Encoder.error(request.id, { code: -32603, message: `Client busy: ${maxServerRequests} requests of the server are being answered` }))
      return Effect.succeed(undefined)
    }
    serving++
    const answer: Effect.Effect<string> = request.method === Methods.Ping.name
      ? Effect.succeed(Encoder.result(request.id, {}))
      : InputHandlers.answer(handlers, request.method, request.params).pipe(
        Effect.map((result) => Encoder.result(request.id, result)),
        Effect.catch((error) =>
          Effect.succeed(Encoder.error(request.id, { code: error._tag === "MissingHandler" ? -32601 : -32602, message: error.message }))
        )
      )
    // The answer is written before the request stops counting: a server that does not read holds its slot.
    return answer.pipe(
      Effect.flatMap((frame) => Effect.ignore(channel.write(frame))),
      Effect.as(undefined),
      Effect.ensuring(Effect.sync(() => void serving--))
    )
  }

  let peer: Peer.Peer | undefined
  const channel = yield* transport.open((frame) => {
    if (ended === undefined) peer?.receiveUnsafe(frame)
  }, failRequest)
  label = channel.label ?? ""
  const answers: OutgoingRequests.OutgoingRequests = { ...outgoing, receive: (response) => outgoing.receive(response) || stray(response) }
  peer = yield* Peer.make({
    sink: { write: (frame: string) => Effect.mapError(channel.write(frame), (error) => new SinkClosed({ message: error.message })) },
    onRequest,
    reject: (id, error) => Encoder.error(id, toWire(error)),
    refuse,
    onNotification,
    outgoing: answers
  })
  yield* Effect.forkIn(Effect.forever(Effect.flatMap(Queue.take(refusals), (frame) => Effect.ignore(channel.write(frame)))), scope)
  yield* Effect.forkIn(Effect.catch(channel.closed, (error) => Effect.sync(() => endWith(error))), scope)
  yield* Scope.addFinalizer(scope, Effect.sync(() => outgoing.close()))

  const failureOf = (method: string, millis: number) => (error: OutgoingRequests.OutgoingRequestError): McpClientError => {
    switch (error.reason) {
      case "Refused":
        return new RpcError({
          method,
          code: error.error?.code ?? -32603,
          message: error.error?.message ?? error.message,
          ...(error.error?.data === undefined ? {} : { data: error.error.data })
        })
      case "Timeout":
        return new TransportError({ reason: "Timeout", message: `The server did not answer ${method} within ${millis} ms (requestTimeout)${where()}` })
      case "Busy":
        return new TransportError({ reason: "Busy", message: `${error.message} (${method} not sent)${where()}` })
      default:
        return ended ?? new TransportError({ reason: "Closed", message: `${method}: the connection has ended${where()}` })
    }
  }

  /**
   * Sends one request and waits for its answer: the transport's own reason when it failed the
   * request (a write that failed, a body over its bound, a refused answer), else the peer's.
   */
  const send = (
    method: string,
    params: Readonly<Record<string, unknown>>,
    millis: number,
    sendOptions?: OutgoingRequests.SendOptions
  ): Effect.Effect<unknown, McpClientError> =>
    Effect.suspend(() => {
      let id: string | undefined
      let writeError: TransportError | undefined
      // The request is the first frame written through its sink (a withdrawal may follow): the
      // transport is told what it holds, so HTTP takes its headers from here, not from a re-parse.
      let described = false
      const sink = {
        write: (frame: string) => {
          const sent = described ? undefined : { method, id, params }
          described = true
          return Effect.mapError(channel.write(frame, sent), (error) => {
            writeError ??= error
            return new SinkClosed({ message: error.message })
          })
        }
      }
      return outgoing.send(sink, method, params, millis, {
        onId: (sent) => {
          id = sent
          pending.set(sent, method)
          sendOptions?.onId?.(sent)
        }
      }).pipe(
        Effect.mapError((error): McpClientError => {
          const failed = id === undefined ? undefined : failures.get(id)
          if (failed !== undefined) return failed
          if (error.reason === "Closed" && writeError !== undefined && ended === undefined) return writeError
          return failureOf(method, millis)(error)
        }),
        Effect.ensuring(Effect.sync(() => {
          if (id === undefined) return
          pending.delete(id)
          failures.delete(id)
          channel.settled?.(id)
        }))
      )
    })

  /** The `_meta` of a request without options of its own, made once per era (every call sends it as it is). */
  let plainMeta: { readonly era: "modern" | "legacy"; readonly meta: Readonly<Record<string, unknown>> } | undefined
  const metaFor = (requestOptions: RequestOptions | undefined, token: string | undefined): Readonly<Record<string, unknown>> => {
    if (requestOptions?.meta !== undefined || token !== undefined) return metaOf(requestOptions, token)
    if (plainMeta?.era !== era) plainMeta = { era, meta: metaOf(undefined, undefined) }
    return plainMeta.meta
  }
  const metaOf = (requestOptions: RequestOptions | undefined, token: string | undefined): Record<string, unknown> => ({
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
    sendOptions?: OutgoingRequests.SendOptions,
    millis: number = timeoutMillis
  ): Effect.Effect<Result, McpClientError> =>
    Effect.suspend(() => {
      const onProgress = requestOptions?.onProgress
      if (onProgress === undefined) {
        return Effect.flatMap(send(method, { ...params, _meta: metaFor(requestOptions, undefined) }, millis, sendOptions), (result) => checked(method, result))
      }
      const token = `progress-${++nextProgress}`
      progress.set(token, onProgress)
      return send(method, { ...params, _meta: metaFor(requestOptions, token) }, millis, sendOptions).pipe(
        Effect.flatMap((result) => checked(method, result)),
        Effect.ensuring(Effect.sync(() => progress.delete(token)))
      )
    })

  /**
   * The server's result, checked against its method's entry in the table (a method the table does
   * not know, an application's own, is only checked to be an object); `resultType` is `"complete"`
   * when the server wrote none.
   */
  const checked = (method: string, result: unknown): Effect.Effect<Result, InvalidResult> => {
    // an input_required round past maxInputRequests is refused before its questions are read
    const asked = Predicate.isObject(result) && result["resultType"] === "input_required" ? result["inputRequests"] : undefined
    if (Predicate.isObject(asked)) {
      const count = questionCount(asked)
      if (count > maxInputRequests) return Effect.fail(tooManyQuestions(method, count))
    }
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

  const tooManyQuestions = (asker: string, count: number) =>
    new InvalidResult({
      method: asker,
      message: `${asker} asked ${count} questions in one round; the client answers at most ${maxInputRequests} (maxInputRequests)`
    })

  const answerAll = (requests: Readonly<Record<string, unknown>>, asker = "the server") =>
    Effect.suspend(() => {
      const entries = Object.entries(requests)
      if (entries.length > maxInputRequests) return Effect.fail(tooManyQuestions(asker, entries.length))
      return Effect.forEach(entries, ([key, inputRequest]) => {
        const { method, params } = record(inputRequest)
        return Effect.map(InputHandlers.answer(handlers, String(method), record(params)), (response) => [key, response] as const)
      }).pipe(Effect.map((found) => Object.fromEntries(found)))
    })

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

  const roundsOf = (method: string, params: Readonly<Record<string, unknown>>, requestOptions?: RequestOptions) => {
    const allowed = requestOptions?.maxRounds ?? maxRounds
    // Round `round` has been answered with `result`: the complete result, or the next round.
    const next = (round: number, result: Result): Effect.Effect<Result, McpClientError> => {
      if (result.resultType !== "input_required") return Effect.succeed(result)
      if (round > allowed) {
        return Effect.fail(new TooManyRounds({ method, rounds: allowed, message: `${method} still asked for input after ${allowed} rounds` }))
      }
      return Effect.flatMap(answerAll(record(result["inputRequests"]), method), (responses) => {
        const state = result["requestState"]
        const retry = {
          ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
          ...(typeof state === "string" ? { requestState: state } : {})
        }
        return Effect.flatMap(once(method, { ...params, ...retry }, requestOptions), (answer) => next(round + 1, answer))
      })
    }
    return Effect.flatMap(once(method, params, requestOptions), (result) => next(1, result))
  }

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

  const notify: Client["notify"] = (method, params = {}) => channel.write(Encoder.notification(method, params), { method, params })

  const discover = cached(Methods.ServerDiscover.name, {}) as Effect.Effect<Discover.DiscoverResult, McpClientError>

  // --- the era ---
  const negotiate = Effect.gen(function*() {
    if (options.probe === false && options.protocolVersion !== legacyVersion) {
      return { protocolVersion: latestVersion, era: "modern", capabilities: {}, serverInfo: undefined, instructions: undefined } satisfies ServerDescription
    }
    const wantLegacy = options.protocolVersion === legacyVersion
    if (!wantLegacy) {
      const probeMillis = Duration.toMillis(Duration.fromInputUnsafe(options.probeTimeout ?? "10 seconds"))
      const probeOnce = Effect.exit(Effect.timeoutOrElse(discover, {
        duration: probeMillis,
        orElse: () =>
          Effect.fail(new TransportError({ reason: "Timeout", message: `The server did not answer server/discover within ${probeMillis} ms (probeTimeout)${where()}` }))
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
      const failed = Exit.isFailure(probe) ? Option.getOrUndefined(Cause.findErrorOption(probe.cause)) : undefined
      if (options.protocolVersion === latestVersion) {
        const pinned = "protocolVersion is pinned to 2026-07-28; pass protocolVersion: \"auto\" (the default) to fall back to 2025-11-25 (initialize)"
        if (Exit.isFailure(probe) && failed === undefined) return yield* Effect.failCause(probe.cause)
        return yield* Effect.fail(
          failed === undefined
            ? new RpcError({ method: Methods.ServerDiscover.name, code: -32022, message: `The server does not support 2026-07-28${where()}; ${pinned}` })
            : probeAnswered(failed)
            ? withMessage(failed, `The server does not speak 2026-07-28: server/discover failed: ${failed.message}; ${pinned}`)
            : failed
        )
      }
      if (ended !== undefined) return yield* Effect.fail(ended)
      if (Exit.isFailure(probe) && (failed === undefined || !probeAnswered(failed))) return yield* Effect.failCause(probe.cause)
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
  const connectMillis = Duration.toMillis(Duration.fromInputUnsafe(options.connectTimeout ?? "2 minutes"))
  const server: ServerDescription = yield* Effect.timeoutOrElse(negotiate, {
    duration: connectMillis,
    orElse: () =>
      Effect.fail(new TransportError({ reason: "Timeout", message: `Connecting to the server took longer than ${connectMillis} ms (connectTimeout)${where()}` }))
  })

  // --- typed calls ---
  const driver: TaskHandle.Driver = {
    request: (method, params) => request(method, params),
    answer: (requests) => answerAll(requests, "tools/call (a task)"),
    maxRounds,
    changed: (taskId) =>
      Effect.scoped(Effect.flatMap(PubSub.subscribe(notifications), (subscription) =>
        Stream.runHead(Stream.filter(
          Stream.fromSubscription(subscription),
          (notification) => notification.method === Methods.TaskStatus.name && notification.params["taskId"] === taskId
        )))).pipe(Effect.asVoid),
    watch: (taskId) => Effect.ignore(listen({ taskIds: [taskId] }))
  }
  const taskDriver = (requestOptions: RequestOptions | undefined): TaskHandle.Driver => ({
    ...driver,
    timeout: requestOptions?.taskTimeout ?? taskTimeout,
    maxRounds: requestOptions?.maxRounds ?? maxRounds
  })

  const startTool: Client["startTool"] = (name, args = {}, requestOptions) =>
    Effect.map(request(Methods.ToolsCall.name, { name, arguments: args }, requestOptions), (result): Started =>
      result.resultType === "task"
        ? { _tag: "Task", task: TaskHandle.make(taskDriver(requestOptions), result) }
        : { _tag: "Complete", result: result as Tools.CallToolResult })

  const callTool: Client["callTool"] = (name, args = {}, requestOptions) =>
    Effect.flatMap(request(Methods.ToolsCall.name, { name, arguments: args }, requestOptions), (result) =>
      result.resultType === "task"
        ? TaskHandle.make(taskDriver(requestOptions), result).await
        : Effect.succeed(result as Tools.CallToolResult))

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

  function listen(filter: Notifications.SubscriptionFilter & { readonly taskIds?: ReadonlyArray<string> }, listenOptions?: ListenOptions) {
    return listenTo(filter, listenOptions)
  }
  const listenTo: Client["listen"] = (filter, listenOptions) =>
    Effect.gen(function*() {
      const capacity = listenOptions?.buffer ?? listenBuffer
      const overflow = listenOptions?.overflow ?? "dropOldest"
      const changes = yield* (overflow === "fail"
        ? Queue.bounded<ListenChange.ListenChange, McpClientError | Cause.Done>(capacity)
        : Queue.sliding<ListenChange.ListenChange, McpClientError | Cause.Done>(capacity))
      const asked = askedKeys(filter)
      let id: string | undefined
      const acknowledged = Deferred.makeUnsafe<Readonly<Record<string, unknown>>>()
      const listener = (notification: Notification) => {
        if (era === "modern") {
          if (id === undefined || subscriptionIdOf(notification) !== id) return
          if (notification.method === Methods.SubscriptionsAcknowledged.name) {
            return void Deferred.doneUnsafe(acknowledged, Exit.succeed(record(notification.params["notifications"])))
          }
        } else if (!wanted(filter, notification)) return
        const change = ListenChange.fromNotification(notification)
        if (change === undefined || Queue.offerUnsafe(changes, change)) return
        Queue.failCauseUnsafe(changes, Cause.fail(new Overflow({ capacity, message: `The application read this listen stream too slowly: ${capacity} changes were waiting (buffer)` })))
      }
      listeners.add(listener)
      yield* Effect.addFinalizer(() => Effect.sync(() => void listeners.delete(listener)))
      const unsupported = (what: string) =>
        new Unsupported({ method: Methods.SubscriptionsListen.name, message: `The server ${what} none of the changes asked for (${asked.join(", ")}); the stream would never deliver one${where()}` })
      if (era === "legacy") {
        if (asked.length > 0 && !asked.some((key) => declares(server.capabilities, key))) return yield* unsupported("declares")
        yield* Effect.forEach(filter.resourceSubscriptions ?? [], (uri) => request(Methods.ResourcesSubscribe.name, { uri }), { discard: true })
        return Stream.fromQueue(changes)
      }
      // A listen stream lives until the application or the server ends it: no requestTimeout.
      const open = yield* Effect.forkScoped(once(Methods.SubscriptionsListen.name, { notifications: filter }, undefined, { onId: (sent) => id = sent }, Infinity))
      // The stream is open once acknowledged (or the request failed first), within the request timeout.
      const honoured = yield* Effect.raceFirst(
        Deferred.await(acknowledged),
        Effect.flatMap(Fiber.join(open), () => Effect.succeed(undefined))
      ).pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(new TransportError({ reason: "Timeout", message: `The server did not acknowledge subscriptions/listen in time (requestTimeout)${where()}` }))
        })
      )
      if (honoured !== undefined && asked.length > 0 && !asked.some((key) => honours(honoured, key))) return yield* unsupported("acknowledged")
      // The server ending the listen request ends the stream after the changes it holds; its failure fails it.
      yield* Effect.forkScoped(Effect.flatMap(Fiber.await(open), (exit) =>
        Exit.isSuccess(exit) ? Queue.end(changes) : Queue.failCause(changes, exit.cause)))
      return Stream.fromQueue(changes)
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
        : Effect.map(send(method, { ...params, _meta: roundTripOptions.meta }, timeoutMillis), (result) => (Predicate.isObject(result) ? result : {}) as Result),
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
