/**
 * The questions a session has asked, by key. A key names one question for the request's (or the
 * task's) whole life: asking it again with the same request is how a handler re-reads its answer,
 * asking it with another request is a defect of the handler. Every input session (an MRTR round,
 * an initialize-era request asking the client, a task) keeps one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as AskedKeys from "@snodo/core/extension/AskedKeys"
 * import * as Input from "@snodo/core/Input"
 *
 * const asked = AskedKeys.make()
 * const conflict = asked.note(Input.roots("roots"))
 * const checked = conflict === undefined ? Effect.void : Effect.die(conflict)
 * ```
 *
 * @since 0.1.0
 */
import type { Ask } from "./Input.ts"
import { canonicalJson } from "./RequestState.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface AskedKeys {
  /** Records `ask` under its key; the defect to die with when the key was asked with another request. */
  readonly note: (ask: Ask<unknown>) => Error | undefined
}

/**
 * @category constructors
 * @since 0.1.0
 */
export const make = (): AskedKeys => {
  const requests = new Map<string, string>()
  return {
    note: (ask) => {
      const fingerprint = canonicalJson(ask.request)
      const previous = requests.get(ask.key)
      if (previous !== undefined && previous !== fingerprint) {
        return new Error(`Input key "${ask.key}" was asked with two different requests`)
      }
      requests.set(ask.key, fingerprint)
      return undefined
    }
  }
}
