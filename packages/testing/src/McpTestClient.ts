/**
 * An in-memory MCP client for `@effect/vitest`: `@snodo/client`'s `McpClient` on the in-memory
 * transport, with what a test of a server needs besides.
 *
 * It talks to a real {@link ServerRuntime} through the same connection code as the stdio
 * transport (frames are encoded and decoded as on the wire), so what a test sees is what a client
 * would see, without a process or a socket. The client's own calls are there as they are
 * (`call` with a typed `ToolSpec`, `startTool` and task handles, `listen`, `listTools`, …); the
 * methods a server's tests use (`request`, `callTool`, `readResource`, `getPrompt`, `discover`,
 * `list`) send one round trip and hand back the server's answer as written, an `input_required`
 * round included. Every request carries valid 2026-07-28 `_meta` unless the test overrides it.
 *
 * Results are typed with snodo's wire schemas and checked against them: a result that does not
 * match its method's schema (for its `resultType`) is a defect of the server under test, so the
 * test fails there, naming the method and the mismatch. Notifications the server writes (progress,
 * log messages, listen changes) arrive in order on {@link Client.notifications}, a `Queue`.
 *
 * @example
 * ```ts
 * import { it, expect } from "@effect/vitest"
 * import { Effect, Layer } from "effect"
 * import { McpTestClient } from "@snodo/testing"
 *
 * it.effect("adds", () =>
 *   Effect.gen(function*() {
 *     const client = yield* McpTestClient
 *     const result = yield* client.callTool("add", { a: 1, b: 2 })
 *     expect(result.structuredContent).toEqual({ sum: 3 })
 *   }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer)))))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Predicate, Queue, Schema } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as Connection from "@snodo/core/transport/Connection"
import { type ClientTransport, Transport } from "@snodo/client/ClientTransport"
import * as McpClient from "@snodo/client/McpClient"
import type * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import * as ResultCheck from "@snodo/protocol/methods/ResultCheck"
import type * as Completion from "@snodo/protocol/wire/Completion"
import type * as Discover from "@snodo/protocol/wire/Discover"
import * as Mrtr from "@snodo/protocol/wire/Mrtr"
import type * as Prompts from "@snodo/protocol/wire/Prompts"
import type * as Resources from "@snodo/protocol/wire/Resources"
import * as Tools from "@snodo/protocol/wire/Tools"

/**
 * A JSON-RPC error the server answered with.
 *
 * @category errors
 * @since 0.1.0
 */
export class McpRpcError extends Schema.TaggedError<McpRpcError>()("McpRpcError", {
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {}

/**
 * A result object as the server wrote it.
 *
 * @category models
 * @since 0.1.0
 */
export type Result = Readonly<Record<string, unknown>> & { readonly resultType: string }

/**
 * An `input_required` answer (any method that may ask for input).
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequiredResult = Mrtr.InputRequiredResult

/**
 * A `tools/call` answer: the complete `CallToolResult` (checked against its schema), or, for an
 * `input_required` round, that result (its fields beside `resultType` are then absent).
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolResult = Tools.CallToolResult

/**
 * A `resources/read` answer (or an `input_required` round).
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResourceResult = Resources.ReadResourceResult

/**
 * A `prompts/get` answer (or an `input_required` round).
 *
 * @category models
 * @since 0.1.0
 */
export type GetPromptResult = Prompts.GetPromptResult

/**
 * One notification the server wrote.
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * Per-request options.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestOptions {
  /** Client capabilities for this request (default `{}`). */
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** Extra `_meta` entries, merged over the defaults. */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Sets `_meta.progressToken`: the server's progress for it arrives on `notifications`. */
  readonly progressToken?: string | number
}

/**
 * The input requests of an `input_required` result, by key.
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequests = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/**
 * Answers one round's input requests: the `inputResponses` to retry with (by key). `round` counts
 * from 1.
 *
 * @category models
 * @since 0.1.0
 */
export type Fulfil = (
  inputRequests: InputRequests,
  round: number
) => Readonly<Record<string, unknown>> | Effect.Effect<Readonly<Record<string, unknown>>>

/**
 * What a multi-round request went through.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rounds {
  /** The complete result. */
  readonly result: Result
  /** Every `input_required` result before it, in order. */
  readonly interim: ReadonlyArray<Result>
}

/**
 * The protocol version the client speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const protocolVersion = "2026-07-28"

/**
 * The `_meta` a well-behaved 2026-07-28 client sends.
 *
 * @category combinators
 * @since 0.1.0
 */
export const defaultMeta = (capabilities: Readonly<Record<string, unknown>> = {}): Record<string, unknown> => ({
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "snodo-test-client", version: "0.1.0" }
})

/**
 * The four lists, by the kind of entry.
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
 * What the test client keeps of `@snodo/client`'s client as it is.
 *
 * @category models
 * @since 0.1.0
 */
export type Base = Omit<
  McpClient.Client,
  "request" | "callTool" | "discover" | "list" | "readResource" | "getPrompt" | "complete" | "notify" | "notifications"
>

/**
 * @category models
 * @since 0.1.0
 */
export interface Client extends Base {
  /** `@snodo/client`'s client itself (its `callTool` follows input rounds with the handlers in context). */
  readonly mcp: McpClient.Client
  /** Sends a request; fails with the server's error. The result is not checked (any method). */
  readonly request: (method: string, params?: Readonly<Record<string, unknown>>, options?: RequestOptions) => Effect.Effect<Result, McpRpcError>
  readonly discover: (options?: RequestOptions) => Effect.Effect<Discover.DiscoverResult, McpRpcError>
  readonly callTool: (name: string, args?: Readonly<Record<string, unknown>>, options?: RequestOptions) => Effect.Effect<CallToolResult, McpRpcError>
  /** Every entry of a list (`tools`, `resources`, `resourceTemplates`, `prompts`), following cursors. */
  readonly list: <K extends keyof Lists>(kind: K) => Effect.Effect<ReadonlyArray<Lists[K]>, McpRpcError>
  readonly readResource: (uri: string, options?: RequestOptions) => Effect.Effect<ReadResourceResult, McpRpcError>
  readonly getPrompt: (name: string, args?: Readonly<Record<string, string>>, options?: RequestOptions) => Effect.Effect<GetPromptResult, McpRpcError>
  readonly complete: (
    ref: Readonly<Record<string, unknown>>,
    argument: { readonly name: string; readonly value: string },
    context?: Readonly<Record<string, string>>
  ) => Effect.Effect<Completion.CompleteResult, McpRpcError>
  /**
   * Sends a request and follows `input_required` answers as a client does: each round's requests
   * are answered by `fulfil` and the original params retried with those `inputResponses` and the
   * `requestState` echoed byte for byte, until a complete result (at most `maxRounds`, default 10).
   */
  readonly rounds: (
    method: string,
    params: Readonly<Record<string, unknown>>,
    fulfil: Fulfil,
    options?: RequestOptions & { readonly maxRounds?: number }
  ) => Effect.Effect<Rounds, McpRpcError>
  /** Sends a notification (e.g. `notifications/cancelled`). */
  readonly notify: (method: string, params: Readonly<Record<string, unknown>>) => Effect.Effect<void>
  /** Every notification the server writes, in order (progress, log messages, listen changes). */
  readonly notifications: Queue.Dequeue<Notification>
  /** Sends raw text and returns every frame written until the server is idle again. */
  readonly raw: (frame: string) => Effect.Effect<ReadonlyArray<unknown>>
  /** Every frame the server wrote, in order, parsed. */
  readonly written: () => ReadonlyArray<unknown>
  /** Every frame the server wrote, in order, as text. */
  readonly frames: () => ReadonlyArray<string>
}

/** The method that lists each kind of entry. */
const listMethods = {
  tools: Methods.ToolsList,
  resources: Methods.ResourcesList,
  resourceTemplates: Methods.ResourcesTemplatesList,
  prompts: Methods.PromptsList
} as const

/**
 * Checks a result against its method's entry in the method table (`ResultCheck`: a complete
 * result against the result schema, an `input_required` round against the MRTR shape, a `task`
 * against `CreateTaskResult`); a mismatch is a defect of the server under test.
 */
const checked = <A>(method: Method.AnyRequest) => {
  const check = ResultCheck.make(method)
  return (result: Result): Effect.Effect<A> => {
    const mismatch = check(result, "2026-07-28")
    // the result as written (checked, never rewritten)
    if (mismatch === undefined) return Effect.succeed(result as unknown as A)
    return Effect.die(
      new Error(`${method.name}: the server's ${result.resultType} result does not match its schema at ${mismatch.path || "the root"}: ${mismatch.message}`)
    )
  }
}

/**
 * Builds a client in the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*() {
  // Unbounded on purpose, as `frames` is: a test client records everything the server wrote, for
  // the test to read at its pace (a server under test is not a hostile peer).
  const notifications = yield* Queue.unbounded<Notification>()
  const written: Array<unknown> = []
  const frames: Array<string> = []
  const runtime = yield* Effect.context<ServerRuntime>()
  let connection: Connection.Connection | undefined

  /** Records what the server writes: every frame, and the notifications on their queue. */
  const onFrame = (frame: string) => {
    const message: unknown = JSON.parse(frame)
    frames.push(frame)
    written.push(message)
    if (!Predicate.isObject(message) || "id" in message) return
    const method = message["method"]
    const params = message["params"]
    if (typeof method === "string") Queue.offerUnsafe(notifications, { method, params: Predicate.isObject(params) ? params : {} })
  }

  const transport: ClientTransport = {
    open: (receive) =>
      Effect.gen(function*() {
        const opened = yield* Connection.make({
          transport: "memory",
          sink: {
            write: (frame) =>
              Effect.sync(() => {
                onFrame(frame)
                receive(frame)
              })
          }
        })
        connection = opened
        return { write: opened.receive, closed: Effect.never }
      }).pipe(Effect.provide(runtime))
  }
  const mcp = yield* McpClient.make({ probe: false, clientInfo: { name: "snodo-test-client", version: "0.1.0" } }).pipe(
    Effect.provideService(Transport, transport),
    Effect.orDie
  )
  const opened = connection as Connection.Connection | undefined
  if (opened === undefined) return yield* Effect.die(new Error("the in-memory connection did not open"))

  const request: Client["request"] = (method, params = {}, options) => {
    const meta: Record<string, unknown> = { ...defaultMeta(options?.capabilities), ...options?.meta }
    if (options?.progressToken !== undefined) meta["progressToken"] = options.progressToken
    return mcp.roundTrip(method, params, { meta }).pipe(
      Effect.catchTag("RpcError", (error) =>
        Effect.fail(new McpRpcError({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }))),
      Effect.catch((error) => error instanceof McpRpcError ? Effect.fail(error) : Effect.die(error))
    )
  }

  const checkTool = checked<CallToolResult>(Methods.ToolsCall)
  const checkRead = checked<Resources.ReadResourceResult>(Methods.ResourcesRead)
  const checkPrompt = checked<Prompts.GetPromptResult>(Methods.PromptsGet)
  const checkComplete = checked<Completion.CompleteResult>(Methods.CompletionComplete)
  const checkDiscover = checked<Discover.DiscoverResult>(Methods.ServerDiscover)

  const list: Client["list"] = <K extends keyof Lists>(kind: K) =>
    Effect.gen(function*() {
      const check = checked<Record<K, ReadonlyArray<Lists[K]>>>(listMethods[kind])
      const items: Array<Lists[K]> = []
      let cursor: string | undefined
      do {
        const page = yield* Effect.flatMap(request(listMethods[kind].name, cursor === undefined ? {} : { cursor }), check)
        items.push(...page[kind])
        cursor = (page as unknown as { readonly nextCursor?: string }).nextCursor
      } while (cursor !== undefined)
      return items
    })

  const rounds: Client["rounds"] = (method, params, fulfil, options) =>
    Effect.gen(function*() {
      const interim: Array<Result> = []
      const maxRounds = options?.maxRounds ?? 10
      let retry: Record<string, unknown> = {}
      for (;;) {
        const result = yield* request(method, { ...params, ...retry }, options)
        if (result.resultType !== "input_required") return { result, interim }
        interim.push(result)
        if (interim.length >= maxRounds) {
          return yield* new McpRpcError({ code: 0, message: `still input_required after ${maxRounds} rounds` })
        }
        const answered = fulfil((result["inputRequests"] ?? {}) as InputRequests, interim.length)
        const responses = Effect.isEffect(answered) ? yield* answered : answered
        const state = result["requestState"]
        retry = {
          ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
          ...(typeof state === "string" ? { requestState: state } : {})
        }
      }
    })

  const client: Client = {
    ...mcp,
    mcp,
    request,
    rounds,
    discover: (options) => Effect.flatMap(request(Methods.ServerDiscover.name, {}, options), checkDiscover),
    callTool: (name, args = {}, options) => Effect.flatMap(request(Methods.ToolsCall.name, { name, arguments: args }, options), checkTool),
    list,
    readResource: (uri, options) => Effect.flatMap(request(Methods.ResourcesRead.name, { uri }, options), checkRead),
    getPrompt: (name, args = {}, options) => Effect.flatMap(request(Methods.PromptsGet.name, { name, arguments: args }, options), checkPrompt),
    complete: (ref, argument, context) =>
      Effect.flatMap(
        request(Methods.CompletionComplete.name, context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } }),
        checkComplete
      ),
    notify: (method, params) => opened.receive(Encoder.notification(method, params)),
    notifications,
    raw: (frame) =>
      Effect.gen(function*() {
        const before = written.length
        yield* opened.receive(frame)
        yield* opened.drain
        return written.slice(before)
      }),
    written: () => written,
    frames: () => frames
  }
  return client
})

/**
 * The client as a service.
 *
 * @category services
 * @since 0.1.0
 */
export class McpTestClient extends Context.Service<McpTestClient, Client>()("@snodo/testing/McpTestClient") {
  /** A client connected to the `ServerRuntime` in context. */
  static readonly layer: Layer.Layer<McpTestClient, never, ServerRuntime> = Layer.effect(McpTestClient, make())
}
