/**
 * Resources with an exact URI.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Content from "@snodo/core/Content"
 * import * as Resource from "@snodo/core/Resource"
 *
 * const readme = Resource.make({ uri: "file:///README.md", name: "readme", mimeType: "text/markdown" },
 *   Effect.succeed(Content.textContents("file:///README.md", "# Hello", "text/markdown")))
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import type * as Shaping from "../pipeline/Shaping.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type * as Content from "./Content.ts"
import type { Annotations, Icon } from "./Tool.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Resource")

/**
 * What `resources/list` says of a resource.
 *
 * @category models
 * @since 0.1.0
 */
export interface Description {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
  readonly annotations?: Annotations & Readonly<Record<string, unknown>>
  readonly icons?: ReadonlyArray<Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * Cache hints for reads of this resource (default: the server's).
 *
 * @category models
 * @since 0.1.0
 */
export type CacheHint = Shaping.CacheHint

/**
 * What a read handler returns: one contents item or several.
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResult = Content.ResourceContents | ReadonlyArray<Content.ResourceContents>

/**
 * A defined resource.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resource<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly description: Description
  readonly cache: CacheHint | undefined
  readonly read: Effect.Effect<ReadResult, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`). */
  readonly limits: ComponentOptions.Limits
}

/**
 * Whether a value is a resource.
 *
 * @category guards
 * @since 0.1.0
 */
export const isResource = (u: unknown): u is Resource<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * How a resource is read: an Effect, or a function returning one (called again for every read).
 *
 * @category models
 * @since 0.1.0
 */
export type Read<E, R> =
  | Effect.Effect<ReadResult | InputRequired, E, R>
  | (() => Effect.Effect<ReadResult | InputRequired, E, R>)

/**
 * Defines a resource. The read is an Effect, or a function returning one; it runs per
 * `resources/read` with the request services in context (a function is called again each time).
 * A protocol error (`McpError`) it fails with is written as such.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Content from "@snodo/core/Content"
 * import * as Resource from "@snodo/core/Resource"
 *
 * const motd = Resource.make({ uri: "motd://today", name: "motd" }, Effect.succeed(Content.textContents("motd://today", "Hi")))
 * const clock = Resource.make({ uri: "clock://now", name: "now" },
 *   () => Effect.sync(() => Content.textContents("clock://now", new Date().toISOString())))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <E = never, R = never>(
  description: Description & { readonly cache?: CacheHint } & ComponentOptions.ComponentOptions,
  read: Read<E, R>
): Resource<R> => {
  const { limits, rest: { cache, ...rest } } = ComponentOptions.split(description)
  const effect = Effect.isEffect(read) ? read : Effect.suspend(read)
  // A returned InputRequired ends the round before the read is shaped (see internal/Round).
  return { [TypeId]: TypeId, description: rest, cache, read: effect as Effect.Effect<ReadResult, E, R>, limits }
}
