/**
 * An in-memory MCP client for `@effect/vitest`.
 *
 * It talks to a real {@link ServerRuntime} through the same connection code as the stdio
 * transport (frames are encoded and decoded as on the wire), so what a test sees is what a client
 * would see, without a process or a socket. Every request carries valid 2026-07-28 `_meta` unless
 * the test overrides it.
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
import { Context, Deferred, Effect, Layer, Predicate, Schema } from "effect"
import * as Encoder from "@snodo/core/pipeline/Encoder"
import type { RequestId } from "@snodo/core/pipeline/Envelope"
import type { ServerRuntime } from "@snodo/core/runtime/ServerRuntime"
import * as Connection from "@snodo/core/transport/Connection"

/** A JSON-RPC error the server answered with. @since 0.1.0 */
export class McpRpcError extends Schema.TaggedError<McpRpcError>()("McpRpcError", {
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {}

/** A result object as the server wrote it. @since 0.1.0 */
export type Result = Readonly<Record<string, unknown>> & { readonly resultType: string }

/** A `tools/call` result. @since 0.1.0 */
export interface CallToolResult extends Result {
  readonly content: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly structuredContent?: Readonly<Record<string, unknown>>
  readonly isError?: boolean
}

/** Per-request options. @since 0.1.0 */
export interface RequestOptions {
  /** Client capabilities for this request (default `{}`). */
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** Extra `_meta` entries, merged over the defaults. */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Sets `_meta.progressToken` and collects the notifications sent for it. */
  readonly onNotification?: (notification: Readonly<Record<string, unknown>>) => void
  readonly progressToken?: string | number
}

/** The input requests of an `input_required` result, by key. @since 0.1.0 */
export type InputRequests = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/**
 * Answers one round's input requests: the `inputResponses` to retry with (by key). `round` counts
 * from 1.
 *
 * @since 0.1.0
 */
export type Fulfil = (
  inputRequests: InputRequests,
  round: number
) => Readonly<Record<string, unknown>> | Effect.Effect<Readonly<Record<string, unknown>>>

/** What a multi-round request went through. @since 0.1.0 */
export interface Rounds {
  /** The complete result. */
  readonly result: Result
  /** Every `input_required` result before it, in order. */
  readonly interim: ReadonlyArray<Result>
}

/** The protocol version the client speaks. @since 0.1.0 */
export const protocolVersion = "2026-07-28"

/** The `_meta` a well-behaved 2026-07-28 client sends. @since 0.1.0 */
export const defaultMeta = (capabilities: Readonly<Record<string, unknown>> = {}): Record<string, unknown> => ({
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "snodo-test-client", version: "0.1.0" }
})

/** @since 0.1.0 */
export interface Client {
  /** Sends a request; fails with the server's error. */
  readonly request: (method: string, params?: Readonly<Record<string, unknown>>, options?: RequestOptions) => Effect.Effect<Result, McpRpcError>
  readonly discover: (options?: RequestOptions) => Effect.Effect<Result, McpRpcError>
  readonly callTool: (name: string, args?: Readonly<Record<string, unknown>>, options?: RequestOptions) => Effect.Effect<CallToolResult, McpRpcError>
  /** Every page of a list (`tools`, `resources`, `resourceTemplates`, `prompts`), following cursors. */
  readonly listAll: (method: "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list") => Effect.Effect<ReadonlyArray<Readonly<Record<string, unknown>>>, McpRpcError>
  readonly readResource: (uri: string, options?: RequestOptions) => Effect.Effect<Result, McpRpcError>
  readonly getPrompt: (name: string, args?: Readonly<Record<string, string>>, options?: RequestOptions) => Effect.Effect<Result, McpRpcError>
  readonly complete: (
    ref: Readonly<Record<string, unknown>>,
    argument: { readonly name: string; readonly value: string },
    context?: Readonly<Record<string, string>>
  ) => Effect.Effect<Result, McpRpcError>
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
  /** Sends raw text and returns every frame written until the server is idle again. */
  readonly raw: (frame: string) => Effect.Effect<ReadonlyArray<unknown>>
  /** Every frame the server wrote, in order, parsed. */
  readonly written: () => ReadonlyArray<unknown>
  /** Every frame the server wrote, in order, as text. */
  readonly frames: () => ReadonlyArray<string>
}

const listKeys = {
  "tools/list": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts"
} as const


/**
 * Builds a client in the current scope.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*() {
  const pending = new Map<string, Deferred.Deferred<Result, McpRpcError>>()
  const listeners = new Map<string, (notification: Readonly<Record<string, unknown>>) => void>()
  const written: Array<unknown> = []
  const frames: Array<string> = []
  let nextId = 1

  const onFrame = (frame: string) => {
    const message: unknown = JSON.parse(frame)
    frames.push(frame)
    written.push(message)
    if (!Predicate.isObject(message)) return
    const id = message["id"]
    if ((typeof id === "string" || typeof id === "number") && ("result" in message || "error" in message)) {
      const deferred = pending.get(Encoder.idKey(id))
      if (deferred === undefined) return
      pending.delete(Encoder.idKey(id))
      const error = message["error"]
      if (Predicate.isObject(error)) {
        Deferred.doneUnsafe(deferred, Effect.fail(new McpRpcError({
          code: error["code"] as number,
          message: error["message"] as string,
          data: error["data"]
        })))
      } else {
        Deferred.doneUnsafe(deferred, Effect.succeed(message["result"] as Result))
      }
      return
    }
    const params = message["params"]
    const token = Predicate.isObject(params) ? params["progressToken"] : undefined
    if (typeof token === "string" || typeof token === "number") listeners.get(String(token))?.(message)
  }

  const connection = yield* Connection.make({
    transport: "memory",
    sink: { write: (frame) => Effect.sync(() => onFrame(frame)) }
  })

  const request: Client["request"] = (method, params = {}, options) =>
    Effect.gen(function*() {
      const id: RequestId = nextId++
      const meta: Record<string, unknown> = { ...defaultMeta(options?.capabilities), ...options?.meta }
      const token = options?.progressToken ?? (options?.onNotification ? `progress-${id}` : undefined)
      if (token !== undefined) {
        meta["progressToken"] = token
        if (options?.onNotification) listeners.set(String(token), options.onNotification)
      }
      const deferred = yield* Deferred.make<Result, McpRpcError>()
      pending.set(Encoder.idKey(id), deferred)
      yield* connection.receive(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }))
      return yield* Deferred.await(deferred).pipe(
        Effect.ensuring(Effect.sync(() => {
          pending.delete(Encoder.idKey(id))
          if (token !== undefined) listeners.delete(String(token))
        }))
      )
    })

  const listAll: Client["listAll"] = (method) =>
    Effect.gen(function*() {
      const items: Array<Readonly<Record<string, unknown>>> = []
      let cursor: string | undefined
      do {
        const page = yield* request(method, cursor === undefined ? {} : { cursor })
        items.push(...(page[listKeys[method]] as ReadonlyArray<Readonly<Record<string, unknown>>>))
        cursor = page["nextCursor"] as string | undefined
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
    request,
    rounds,
    discover: (options) => request("server/discover", {}, options),
    callTool: (name, args = {}, options) => request("tools/call", { name, arguments: args }, options) as Effect.Effect<CallToolResult, McpRpcError>,
    listAll,
    readResource: (uri, options) => request("resources/read", { uri }, options),
    getPrompt: (name, args = {}, options) => request("prompts/get", { name, arguments: args }, options),
    complete: (ref, argument, context) =>
      request("completion/complete", context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } }),
    notify: (method, params) => connection.receive(Encoder.notification(method, params)),
    raw: (frame) =>
      Effect.gen(function*() {
        const before = written.length
        yield* connection.receive(frame)
        yield* connection.drain
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
 * @since 0.1.0
 */
export class McpTestClient extends Context.Service<McpTestClient, Client>()("@snodo/testing/McpTestClient") {
  /** A client connected to the `ServerRuntime` in context. */
  static readonly layer: Layer.Layer<McpTestClient, never, ServerRuntime> = Layer.effect(McpTestClient, make())
}
