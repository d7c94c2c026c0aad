/**
 * The request a handler is serving, as a service in its context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpRequest } from "@snodo/core/McpRequest"
 *
 * const whoIsAsking = McpRequest.useSync((request) => request.meta.clientInfo?.name)
 * ```
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import type { Principal } from "./Principal.ts"

/**
 * Which transport carried the request: the built-in ones, `"task"` for a handler running as a
 * task (detached from the request that created it), or the name a transport of one's own gives
 * itself (`"tcp"`).
 *
 * @category models
 * @since 0.1.0
 */
export type TransportKind = "stdio" | "http" | "memory" | "task" | (string & {})

/**
 * @category services
 * @since 0.1.0
 */
export class McpRequest extends Context.Service<McpRequest, {
  readonly id: RequestId
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
  readonly meta: RequestMeta
  readonly transport: TransportKind
  /** The verified principal (anonymous when the transport had none). */
  readonly principal: Principal["Service"]
}>()("@snodo/core/McpRequest") {}

/**
 * The current request.
 *
 * @category constants
 * @since 0.1.0
 */
export const current: Effect.Effect<McpRequest["Service"], never, McpRequest> = McpRequest.useSync((request) => request)
