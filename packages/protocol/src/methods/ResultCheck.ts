/**
 * Checks a result against its method's entry in the table, as the side that sent the request
 * receives it: a complete result against the method's result schema, an `input_required` one
 * against the MRTR shape (when the method may ask for input), a `task` against the Tasks
 * extension's `CreateTaskResult` (when the method may create one). The result is checked, never
 * rewritten: what the application gets is what the server wrote, unknown keys and all.
 *
 * An initialize-era (2025-11-25) result carries no `resultType` and no cache hints: it is checked
 * as a complete result that may not be cached. The same holds in either era: a result without
 * `resultType` is a complete one, and a cacheable result without `ttlMs`/`cacheScope` one that may
 * not be cached (the hints only save a round trip; a server that forgets them is still answered).
 *
 * @example
 * ```ts
 * import * as Methods from "@snodo/protocol/methods/Methods"
 * import * as ResultCheck from "@snodo/protocol/methods/ResultCheck"
 *
 * const check = ResultCheck.make(Methods.ToolsCall)
 * check({ resultType: "complete", content: "not a list" }, "2026-07-28")
 * // { path: "content", message: "Expected array, got \"not a list\"" }
 * ```
 *
 * @since 0.1.0
 */
import { Exit, Schema, SchemaIssue } from "effect"
import { InputRequiredResult } from "../wire/Mrtr.ts"
import { CreateTaskResult } from "../wire/Tasks.ts"
import type * as Method from "./Method.ts"
import { isObject } from "../wire/internal/IsObject.ts"

/**
 * Where a result departs from its schema: the first issue's path (`content[0].text`, or `""` at
 * the root) and rule.
 *
 * @category models
 * @since 0.1.0
 */
export interface Mismatch {
  readonly path: string
  readonly message: string
}

/**
 * A compiled check: `undefined` when the result matches.
 *
 * @category models
 * @since 0.1.0
 */
export type Check = (result: unknown, era: Method.Era) => Mismatch | undefined

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathOf = (segments: ReadonlyArray<unknown>): string =>
  segments.map((segment, index) => {
    const key = isObject(segment) && "key" in segment ? segment.key : segment
    return typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`
  }).join("")

const compile = (schema: Schema.Decoder<unknown>) => {
  const decode = Schema.decodeUnknownExit(schema)
  return (value: unknown): Mismatch | undefined => {
    const exit = decode(value)
    if (Exit.isSuccess(exit)) return undefined
    const reason = exit.cause.reasons.find((candidate) => candidate._tag === "Fail")
    if (reason === undefined) return { path: "", message: "does not match the method's result schema" }
    const first = formatter(reason.error.issue).issues[0]
    return first === undefined ? { path: "", message: "does not match the method's result schema" } : { path: pathOf(first.path ?? []), message: first.message }
  }
}

const uncached = { ttlMs: 0, cacheScope: "private" } as const

/**
 * The check of a method's results, compiled once.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (method: Method.AnyRequest): Check => {
  const complete = compile(method.result as Schema.Decoder<unknown>)
  const inputRequired = method.mayAskInput ? compile(InputRequiredResult as Schema.Decoder<unknown>) : undefined
  const task = method.mayCreateTask ? compile(CreateTaskResult as Schema.Decoder<unknown>) : undefined
  return (result, era) => {
    if (!isObject(result)) return { path: "", message: "the result is not an object" }
    const written = result as Readonly<Record<string, unknown>>
    const resultType = written["resultType"] ?? "complete"
    if (resultType === "input_required" && inputRequired !== undefined) return inputRequired(written)
    if (resultType === "task" && task !== undefined) return task(written)
    if (resultType !== "complete" && era === "2026-07-28") {
      return { path: "resultType", message: `${JSON.stringify(resultType)} is not a result type ${method.name} answers with` }
    }
    // A result that names its type and needs no cache defaults is checked as it is (no copy per result).
    if (!method.cacheable && written["resultType"] !== undefined) return complete(written)
    return complete({ resultType: "complete", ...(method.cacheable ? uncached : {}), ...written })
  }
}
