/**
 * `tools/call`: find the tool, validate arguments, run the handler, shape what it returned.
 *
 * The route may answer `input_required` (its handler may use `Input`), runs in the executor, and
 * is checked by the authorization policy as the tool it names (`Mcp-Name` over HTTP).
 *
 * Argument validation failures are `isError` results naming the path and the rule, never the
 * value (the model can correct itself). An unknown tool is -32602. A declared output schema is
 * enforced: a value that does not match, or an explicit result without `structuredContent`, is
 * -32603 (details go to the server log, not the wire).
 *
 * @since 0.1.0
 */
import { Effect, Predicate } from "effect"
import type { Catalog, CompiledTool } from "../catalog/Catalog.ts"
import * as HeaderParams from "../catalog/HeaderParams.ts"
import * as ToolResult from "../catalog/ToolResult.ts"
import type { ValidationIssue } from "../catalog/SchemaValidator.ts"
import { InternalError, InvalidParams, isMcpError, type McpError } from "../pipeline/McpError.ts"
import * as Authorization from "../runtime/Authorization.ts"
import { CallToolRequestParams } from "../wire/Tools.ts"
import * as Route from "./Route.ts"

const describeIssues = (issues: ReadonlyArray<ValidationIssue>): string =>
  issues.slice(0, 10).map((issue) => `${issue.instancePath === "" ? "(root)" : issue.instancePath}: ${issue.message}`).join("; ")

/** The `isError` result for arguments that failed validation. @since 0.1.0 */
export const invalidArguments = (issues: ReadonlyArray<ValidationIssue>): Record<string, unknown> =>
  ToolResult.toWire(ToolResult.error(`Invalid arguments: ${describeIssues(issues)}`))


const outputMismatch = (tool: CompiledTool, issues: ReadonlyArray<ValidationIssue>) =>
  Effect.logError(`Tool "${tool.tool.name}" returned output that does not match its output schema: ${describeIssues(issues)}`).pipe(
    Effect.andThen(Effect.fail(new InternalError({ message: "Tool output did not match its output schema" })))
  )

/**
 * Turns what a handler returned into a wire result.
 *
 * @since 0.1.0
 */
export const shapeReturn = (tool: CompiledTool, value: unknown): Effect.Effect<Record<string, unknown>, McpError> => {
  if (ToolResult.isToolResult(value)) {
    if (tool.checkStructured !== undefined && value.isError !== true) {
      if (value.structuredContent === undefined) {
        return Effect.logError(`Tool "${tool.tool.name}" declares an output schema but returned no structuredContent`).pipe(
          Effect.andThen(Effect.fail(new InternalError({ message: "Tool output is missing its structured content" })))
        )
      }
      const checked = tool.checkStructured(value.structuredContent)
      if (checked._tag === "Invalid") return outputMismatch(tool, checked.issues)
    }
    return Effect.succeed(ToolResult.toWire(value))
  }
  if (tool.encodeOutput !== undefined) {
    const checked = tool.encodeOutput(value)
    if (checked._tag === "Invalid") return outputMismatch(tool, checked.issues)
    return Effect.succeed({
      content: [{ type: "text", text: JSON.stringify(checked.value) }],
      structuredContent: checked.value
    })
  }
  if (typeof value === "string") return Effect.succeed({ content: [{ type: "text", text: value }] })
  if (Predicate.isObject(value)) {
    return Effect.succeed({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value })
  }
  return Effect.succeed({ content: [{ type: "text", text: JSON.stringify(value ?? null) }] })
}

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : "Error"

/**
 * Maps a typed handler failure: the author's renderer if any, else protocol errors as such and
 * anything else as an `isError` result that names only the error's tag.
 *
 * @since 0.1.0
 */
export const renderFailure = (tool: CompiledTool, error: unknown): Effect.Effect<Record<string, unknown>, McpError> => {
  const rendered = tool.tool.renderFailure !== undefined ? tool.tool.renderFailure(error) : error
  if (isMcpError(rendered)) return Effect.fail(rendered)
  if (ToolResult.isToolResult(rendered)) return Effect.succeed(ToolResult.toWire(rendered))
  return Effect.succeed(ToolResult.toWire(ToolResult.error(`Tool "${tool.tool.name}" failed: ${tagOf(rendered)}`)))
}

/** The error for an unknown tool (also used when authorization conceals). @since 0.1.0 */
export const unknownTool = (name: string) => new InvalidParams({ message: `Unknown tool: ${name}` })

/** The tool a `tools/call` names, with its arguments. @since 0.1.0 */
export interface Target {
  readonly tool: CompiledTool
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * Resolves the tool (arguments default to `{}`; their schema is checked when the call runs).
 *
 * @since 0.1.0
 */
export const resolve = (catalog: Catalog, params: CallToolRequestParams): Target | InvalidParams => {
  const tool = catalog.tools.get(params.name)
  if (tool === undefined) return unknownTool(params.name)
  return { tool, arguments: params.arguments ?? {} }
}

/**
 * Runs a resolved call. `provide` gives the handler its request services.
 *
 * @since 0.1.0
 */
export const run = (
  call: Target,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const decoded = call.tool.decodeInput(call.arguments)
  if (decoded._tag === "Invalid") return Effect.succeed(invalidArguments(decoded.issues))
  return provide(call.tool.tool.handler(decoded.value)).pipe(
    Effect.matchEffect({
      onFailure: (error) => renderFailure(call.tool, error),
      onSuccess: (value) => shapeReturn(call.tool, value)
    })
  )
}

const none: ReadonlyArray<Route.Mirror> = []

/**
 * The tool's `x-mcp-header` parameters with their values in the arguments (an unknown tool or
 * malformed arguments mirror nothing: the runtime refuses them with -32602).
 *
 * @since 0.1.0
 */
export const mirrors = (params: Readonly<Record<string, unknown>>, catalog: Catalog): ReadonlyArray<Route.Mirror> => {
  const name = params["name"]
  const tool = typeof name === "string" ? catalog.tools.get(name) : undefined
  const args = params["arguments"] ?? {}
  if (tool === undefined || tool.headerParams.length === 0 || !Predicate.isObject(args)) return none
  return tool.headerParams.map((param) => ({
    header: `Mcp-Param-${param.name}`,
    lower: param.header,
    body: `params.arguments.${param.path.join(".")}`,
    value: HeaderParams.valueAt(args, param.path)
  }))
}

/** `tools/call`. @since 0.1.0 */
export const route: Route.Route<CallToolRequestParams, Target> = Route.make({
  method: "tools/call",
  capability: "tools",
  params: CallToolRequestParams.schema,
  mayAskInput: true,
  bounded: true,
  nameParam: "name",
  mirrors: (params, catalog) => mirrors(params, catalog),
  resolve: (params, environment) => resolve(environment.catalog, params),
  guard: (target) => ({ component: Authorization.toolComponent(target.tool.tool), notFound: () => unknownTool(target.tool.tool.name) }),
  run: (call, target) => Effect.map(run(target, call.provide), Route.result)
})
