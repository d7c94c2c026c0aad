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
 * @example
 * ```ts
 * import * as Tasks from "@snodo/tasks"
 *
 * const tools = {
 *   slow_compute: Tasks.optional({ when: (args) => Number(args["seconds"]) >= 1 }),
 *   failing_job: Tasks.required(),
 *   confirm_then_run: Tasks.required({ detach: true })
 * }
 * ```
 *
 * @since 0.1.0
 */

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
