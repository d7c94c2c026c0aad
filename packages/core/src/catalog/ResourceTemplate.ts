/**
 * Resource templates: families of resources addressed by an RFC 6570 URI template.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Content from "@snodo/core/catalog/Content"
 * import * as ResourceTemplate from "@snodo/core/catalog/ResourceTemplate"
 *
 * const user = ResourceTemplate.make({ uriTemplate: "users://{id}/profile", name: "user-profile" },
 *   ({ uri, variables }) => Effect.succeed(Content.textContents(uri, `user ${variables.id}`)))
 * ```
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type * as Completion from "./Completion.ts"
import type * as Content from "./Content.ts"
import type { CacheHint, ReadResult } from "./Resource.ts"
import type { Annotations, Icon } from "./Tool.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/ResourceTemplate")

/** What `resources/templates/list` says of a template. @since 0.1.0 */
export interface Description {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly annotations?: Annotations & Readonly<Record<string, unknown>>
  readonly icons?: ReadonlyArray<Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** What a template read receives. @since 0.1.0 */
export interface ReadRequest {
  readonly uri: string
  readonly variables: Readonly<Record<string, string | ReadonlyArray<string>>>
}

/**
 * A template handler may answer `undefined`: no resource at that URI (-32602 "Resource not found").
 *
 * @since 0.1.0
 */
export type TemplateReadResult = ReadResult | undefined

/** A defined template. @since 0.1.0 */
export interface ResourceTemplate<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly description: Description
  readonly cache: CacheHint | undefined
  readonly complete: Completion.Providers<R>
  readonly read: (request: ReadRequest) => Effect.Effect<TemplateReadResult, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`), shared by every URI it matches. */
  readonly limits: ComponentOptions.Limits
}

/** Whether a value is a template. @since 0.1.0 */
export const isResourceTemplate = (u: unknown): u is ResourceTemplate<unknown> =>
  typeof u === "object" && u !== null && TypeId in u

/** @since 0.1.0 */
export const make = <E, R, RC = never>(
  description: Description & { readonly cache?: CacheHint; readonly complete?: Completion.Providers<RC> } & ComponentOptions.ComponentOptions,
  read: (request: ReadRequest) => Effect.Effect<TemplateReadResult | InputRequired, E, R>
): ResourceTemplate<R | RC> => {
  const { limits, rest: { cache, complete, ...rest } } = ComponentOptions.split(description)
  // A returned InputRequired ends the round before the read is shaped (see internal/Round).
  return { [TypeId]: TypeId, description: rest, cache, complete: complete ?? {}, read: read as ResourceTemplate<R>["read"], limits }
}

/** Re-exported for handlers that build contents. @since 0.1.0 */
export type Contents = Content.ResourceContents
