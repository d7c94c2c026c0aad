/**
 * Which calls of a tool become tasks.
 *
 * - {@link never} (every tool the Tasks options do not name): always synchronous.
 * - {@link optional}: a task when the request negotiated the extension (and `when` holds for its
 *   arguments), else synchronous.
 * - {@link required}: always a task; a request that did not negotiate the extension is refused
 *   with -32021 naming it.
 *
 * With `detach: true` the handler runs in the request until it yields `Tasks.detach` (see
 * `Phase`): the MRTR rounds before it are answered synchronously, and the task is created there.
 * Without it the task is created as soon as the call arrives and the whole handler is the task's.
 *
 * Name the tools by their definitions with {@link policies} (a misspelt tool is then a compile
 * error, not a `ConfigurationError` at start), or by name in a record.
 *
 * @example
 * ```ts
 * import * as Tasks from "@snodo/tasks"
 *
 * const tools = Tasks.policies(
 *   [slowCompute, Tasks.optional({ when: (args) => Number(args["seconds"]) >= 1 })],
 *   [failingJob, Tasks.required()],
 *   [confirmThenRun, Tasks.required({ detach: true })]
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { Tool } from "@snodo/core/Tool"

/**
 * @category models
 * @since 0.1.0
 */
export type Policy =
  | { readonly _tag: "Never" }
  | {
    readonly _tag: "Optional"
    readonly when: (args: Readonly<Record<string, unknown>>) => boolean
    readonly detach: boolean
  }
  | { readonly _tag: "Required"; readonly detach: boolean }

/**
 * Never a task.
 *
 * @category constants
 * @since 0.1.0
 */
export const never: Policy = { _tag: "Never" }

const always = () => true

/**
 * A task when the request negotiated the extension and `when(arguments)` holds (default: always).
 *
 * @category combinators
 * @since 0.1.0
 */
export const optional = (options?: {
  readonly when?: (args: Readonly<Record<string, unknown>>) => boolean
  readonly detach?: boolean
}): Policy => ({ _tag: "Optional", when: options?.when ?? always, detach: options?.detach ?? false })

/**
 * Always a task; -32021 for a request without the extension.
 *
 * @category combinators
 * @since 0.1.0
 */
export const required = (options?: { readonly detach?: boolean }): Policy => ({ _tag: "Required", detach: options?.detach ?? false })

/**
 * The policies of tools named by their definitions (the values added to the server), as the
 * record `Tasks.extension({ tools })` takes: a tool that does not exist cannot be named.
 *
 * @example
 * ```ts
 * import * as Tasks from "@snodo/tasks"
 *
 * Tasks.extension({ tools: Tasks.policies([report, Tasks.optional()], [deploy, Tasks.required({ detach: true })]) })
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const policies = (
  ...entries: ReadonlyArray<readonly [tool: Pick<Tool<never>, "name">, policy: Policy]>
): Readonly<Record<string, Policy>> => Object.fromEntries(entries.map(([tool, policy]) => [tool.name, policy]))
