/**
 * The effect/ai bridge: a server's tools as an `effect/ai` `Toolkit`, so
 * `LanguageModel.generateText({ prompt, toolkit })` can use any MCP server. Each tool keeps its
 * name, description and JSON Schema (a dynamic tool: the model's arguments go to the server as
 * they are, and the server validates them); its handler calls the server through the client in
 * context and answers `structuredContent` when there is one, else the content blocks. An
 * `isError` result is a success the model reads, as MCP intends; a protocol or transport failure
 * is a defect of the tool call (a dynamic tool declares no failure schema).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { AiToolkit } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const { toolkit, handlers } = yield* AiToolkit.make
 *   return yield* LanguageModel.generateText({ prompt: "What is 1 + 2?", toolkit }).pipe(Effect.provide(handlers))
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, type Layer, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import type * as JsonSchema from "effect/JsonSchema"
import type * as Tools from "@snodo/protocol/wire/Tools"
import { McpClient } from "./McpClient.ts"
import type { McpClientError } from "./McpClientError.ts"

/**
 * What the model gets back from one tool call.
 *
 * @category models
 * @since 0.1.0
 */
export const ToolOutput = Schema.Unknown

/**
 * One bridged tool: the server's JSON Schema as its parameters, whatever the server answered as
 * its output.
 *
 * @category models
 * @since 0.1.0
 */
export type BridgedTool = Tool.Dynamic<string, {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof ToolOutput
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

/**
 * The tools of a toolkit, by name.
 *
 * @category models
 * @since 0.1.0
 */
export type BridgedTools = Record<string, BridgedTool>

/**
 * The toolkit and the Layer of its handlers.
 *
 * @category models
 * @since 0.1.0
 */
export interface Bridged {
  readonly toolkit: Toolkit.Toolkit<BridgedTools>
  /** The handlers: each calls the server through the client it was made with. */
  readonly handlers: Layer.Layer<Tool.HandlersFor<BridgedTools>>
  /** The tools as the server listed them. */
  readonly tools: ReadonlyArray<Tools.Tool>
}

const outputOf = (result: Tools.CallToolResult): unknown => result.structuredContent ?? result.content

/**
 * Which of the server's tools to bridge: their names, or a predicate on the listed tool.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly tools: ReadonlyArray<string> | ((tool: Tools.Tool) => boolean)
}

/**
 * Lists the server's tools (every page) and bridges those `options` picks (all without options).
 * A name the server does not list is left out, as the server's list decides what exists.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AiToolkit } from "@snodo/client"
 *
 * const readOnly = AiToolkit.makeWith({ tools: (tool) => tool.annotations?.readOnlyHint === true })
 * const two = AiToolkit.makeWith({ tools: ["search", "fetch"] })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeWith = (options?: Options): Effect.Effect<Bridged, McpClientError, McpClient> =>
  Effect.gen(function*() {
    const client = yield* McpClient
    const listed = yield* client.listTools
    const pick = options?.tools
    const tools = pick === undefined
      ? listed
      : listed.filter(typeof pick === "function" ? pick : (tool) => pick.includes(tool.name))
    const aiTools = tools.map((tool) =>
      Tool.dynamic(tool.name, {
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.inputSchema as JsonSchema.JsonSchema,
        success: ToolOutput
      }) as BridgedTool
    )
    const toolkit = Toolkit.make(...aiTools) as unknown as Toolkit.Toolkit<BridgedTools>
    const handlers = Object.fromEntries(tools.map((tool) => [
      tool.name,
      (params: unknown) => Effect.orDie(Effect.map(client.callTool(tool.name, (params ?? {}) as Readonly<Record<string, unknown>>), outputOf))
    ]))
    return { toolkit, handlers: toolkit.toLayer(handlers as never) as Layer.Layer<Tool.HandlersFor<BridgedTools>>, tools }
  })

/**
 * Lists the server's tools (every page) and bridges them all ({@link makeWith} picks some).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Bridged, McpClientError, McpClient> = makeWith()
