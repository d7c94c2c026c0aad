/**
 * `tools/call`: find the tool, validate arguments, run the handler, shape what it returned.
 *
 * The route may answer `input_required` (its handler may use `Input`), runs in the executor, and
 * is checked by the authorization policy as the tool it names (`Mcp-Name` over HTTP).
 *
 * Argument validation failures are `isError` results naming the path and the rule, never the
 * value (the model can correct itself). An unknown tool is -32602. A declared output schema is
 * enforced: a value that does not match, or an explicit result without `structuredContent`, is
 * -32603 (details go to the server log, not the wire), and so is a call to a tool whose raw JSON
 * Schema does not compile (compiled at the first call, when the validator defers it). Typed
 * failures are mapped by {@link renderFailure}: declared ones (the tool's `failure` schema) to
 * `isError` results carrying the encoded error, or to what `onFailure` says.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect, Exit, Result } from "effect"
import type { Catalog, CatalogError, CompiledFailure, CompiledTool, ToolChecks } from "../catalog/Catalog.ts"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import * as ToolResult from "../catalog/ToolResult.ts"
import type { ValidationIssue } from "../catalog/SchemaValidator.ts"
import { InternalError, InvalidParams, isMcpError, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import * as Authorization from "../runtime/Authorization.ts"
import { CallToolRequestParams } from "@snodo/protocol/wire/Tools"
import * as Route from "./Route.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

const describeIssues = (issues: ReadonlyArray<ValidationIssue>): string =>
  issues.slice(0, 10).map((issue) => `${issue.instancePath === "" ? "(root)" : issue.instancePath}: ${issue.message}`).join("; ")

/**
 * The `isError` result for arguments that failed validation.
 *
 * @category combinators
 * @since 0.1.0
 */
const invalidArguments = (issues: ReadonlyArray<ValidationIssue>): Record<string, unknown> =>
  ToolResult.toWire(ToolResult.error(`Invalid arguments: ${describeIssues(issues)}`))


const outputMismatch = (tool: CompiledTool, issues: ReadonlyArray<ValidationIssue>) =>
  Effect.logError(`Tool "${tool.tool.name}" returned output that does not match its output schema: ${describeIssues(issues)}`).pipe(
    Effect.andThen(Effect.fail(new InternalError({ message: "Tool output did not match its output schema" })))
  )

/**
 * Turns what a handler returned into a wire result.
 *
 * @category combinators
 * @since 0.1.0
 */
const shapeReturn = (tool: CompiledTool, checks: ToolChecks, value: unknown): Effect.Effect<Record<string, unknown>, McpError> => {
  if (ToolResult.isToolResult(value)) {
    if (checks.checkStructured !== undefined && value.isError !== true) {
      if (value.structuredContent === undefined) {
        return Effect.logError(`Tool "${tool.tool.name}" declares an output schema but returned no structuredContent`).pipe(
          Effect.andThen(Effect.fail(new InternalError({ message: "Tool output is missing its structured content" })))
        )
      }
      const checked = checks.checkStructured(value.structuredContent)
      if (Result.isFailure(checked)) return outputMismatch(tool, checked.failure)
    }
    return Effect.succeed(ToolResult.toWire(value))
  }
  if (checks.encodeOutput !== undefined) {
    const checked = checks.encodeOutput(value)
    if (Result.isFailure(checked)) return outputMismatch(tool, checked.failure)
    return Effect.succeed({
      content: [{ type: "text", text: JSON.stringify(checked.success) }],
      structuredContent: checked.success
    })
  }
  if (typeof value === "string") return Effect.succeed({ content: [{ type: "text", text: value }] })
  if (isObject(value)) {
    return Effect.succeed({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value })
  }
  return Effect.succeed({ content: [{ type: "text", text: JSON.stringify(value ?? null) }] })
}

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : "Error"

/**
 * The `isError` result of a declared failure: the encoded error as `structuredContent` plus a
 * JSON text block when it is an object, a text block when it is a string, JSON text otherwise. A
 * failure its own schema does not encode is the server's bug: -32603, details in the server log.
 */
const declaredFailure = (tool: CompiledTool, failure: CompiledFailure, error: unknown): Effect.Effect<Record<string, unknown>, McpError> => {
  const encoded = failure.encode(error)
  if (Result.isFailure(encoded)) {
    return Effect.logError(`Tool "${tool.tool.name}" failed with an error its failure schema does not encode: ${describeIssues(encoded.failure)}`).pipe(
      Effect.andThen(Effect.fail(new InternalError({ message: "Tool failure did not match its failure schema" })))
    )
  }
  const value = encoded.success
  if (typeof value === "string") return Effect.succeed({ content: [{ type: "text", text: value }], isError: true })
  const text = { type: "text", text: JSON.stringify(value ?? null) }
  return Effect.succeed(
    isObject(value)
      ? { content: [text], structuredContent: value, isError: true }
      : { content: [text], isError: true }
  )
}

const rendered = (tool: CompiledTool, value: ToolResult.ToolResult | McpError): Effect.Effect<Record<string, unknown>, McpError> => {
  if (isMcpError(value)) return Effect.fail(value)
  if (ToolResult.isToolResult(value)) return Effect.succeed(ToolResult.toWire(value))
  return undeclared(tool, value)
}

const undeclared = (tool: CompiledTool, error: unknown): Effect.Effect<Record<string, unknown>, McpError> =>
  isMcpError(error)
    ? Effect.fail(error)
    : Effect.succeed(ToolResult.toWire(ToolResult.error(`Tool "${tool.tool.name}" failed: ${tagOf(error)}`)))

/**
 * Maps a typed handler failure. A failure the tool's `failure` schema declares (every failure,
 * when there is no schema) goes to `onFailure` if the tool has one; else a declared failure becomes
 * an `isError` result carrying the encoded error. Anything else keeps the defaults: protocol
 * errors as such, other failures an `isError` result that names only the error's tag.
 *
 * @category combinators
 * @since 0.1.0
 */
const renderFailure = (tool: CompiledTool, error: unknown): Effect.Effect<Record<string, unknown>, McpError> => {
  const failure = tool.failure
  const declared = failure === undefined || failure.declares(error)
  const render = tool.tool.renderFailure
  if (declared && render !== undefined) return rendered(tool, render(error))
  if (declared && failure !== undefined) return declaredFailure(tool, failure, error)
  return undeclared(tool, error)
}

/**
 * The error for an unknown tool (also used when authorization conceals).
 *
 * @category combinators
 * @since 0.1.0
 */
export const unknownTool = (name: string) => new InvalidParams({ message: `Unknown tool: ${name}` })

/**
 * The tool a `tools/call` names, with its arguments.
 *
 * @category models
 * @since 0.1.0
 */
export interface Target {
  readonly tool: CompiledTool
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * Resolves the tool (arguments default to `{}`; their schema is checked when the call runs).
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (catalog: Catalog, params: Params): Target | InvalidParams => {
  const tool = catalog.tools.get(params.name)
  if (tool === undefined) return unknownTool(params.name)
  return { tool, arguments: params.arguments ?? {} }
}

/**
 * Runs a resolved call. `provide` gives the handler its request services.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (
  call: Target,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const checks = call.tool.checks
  return Effect.isEffect(checks)
    ? Effect.matchEffect(checks, { onFailure: uncompiled, onSuccess: (ready) => runChecked(call, ready, provide) })
    : runChecked(call, checks, provide)
}

const runChecked = (
  call: Target,
  checks: ToolChecks,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const decoded = checks.decodeInput(call.arguments)
  if (Result.isFailure(decoded)) return Effect.succeed(invalidArguments(decoded.failure))
  const handled = provide(call.tool.tool.handler(decoded.success))
  // A handler that returned at once is shaped at once, with no match object or closures.
  if (Immediate.isDone(handled) && Exit.isSuccess(handled)) return shapeReturn(call.tool, checks, handled.value)
  return Immediate.matchEffect(handled, {
    onFailure: (error) => renderFailure(call.tool, error),
    onSuccess: (value) => shapeReturn(call.tool, checks, value)
  })
}

/** A schema compiled at the first call was refused: the server's bug, -32603, the reason in the log. */
const uncompiled = (error: CatalogError) =>
  Effect.logError(error.message).pipe(
    Effect.andThen(Effect.fail(new InternalError({ message: "Tool schema does not compile" })))
  )

/** A tool's invocation check, made once per tool (not per call). */
const guards = new WeakMap<CompiledTool, { readonly component: Authorization.Component; readonly notFound: () => McpError }>()
const guardOf = (tool: CompiledTool) => {
  let guard = guards.get(tool)
  if (guard === undefined) {
    const name = tool.tool.name
    guard = { component: Authorization.toolComponent(tool.tool), notFound: () => unknownTool(name) }
    guards.set(tool, guard)
  }
  return guard
}

const none: ReadonlyArray<Route.Mirror> = []

/**
 * The tool's `x-mcp-header` parameters with their values in the arguments (an unknown tool or
 * malformed arguments mirror nothing: the runtime refuses them with -32602).
 *
 * @category combinators
 * @since 0.1.0
 */
export const mirrors = (params: Readonly<Record<string, unknown>>, catalog: Catalog): ReadonlyArray<Route.Mirror> => {
  const name = params["name"]
  const tool = typeof name === "string" ? catalog.tools.get(name) : undefined
  const args = params["arguments"] ?? {}
  if (tool === undefined || tool.headerParams.length === 0 || !isObject(args)) return none
  return tool.headerParams.map((param) => ({
    header: `Mcp-Param-${param.name}`,
    lower: param.header,
    body: `params.arguments.${param.path.join(".")}`,
    value: HeaderParams.valueAt(args, param.path)
  }))
}

/**
 * The decoded params of `tools/call`.
 *
 * @category models
 * @since 0.1.0
 */
export type Params = typeof CallToolRequestParams.schema.Type

/**
 * `tools/call`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route: Route.Route<Params, Target> = Route.make({
  method: Methods.ToolsCall,
  params: CallToolRequestParams.schema,
  bounded: true,
  mirrors: (params, catalog) => mirrors(params, catalog),
  resolve: (params, environment) => resolve(environment.catalog, params),
  guard: (target) => guardOf(target.tool),
  run: (call, target) => Immediate.map(run(target, call.provide), Route.result)
})
