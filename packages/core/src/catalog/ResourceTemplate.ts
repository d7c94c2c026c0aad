/**
 * Resource templates: families of resources addressed by an RFC 6570 URI template.
 *
 * The handler's `variables` are typed from the template literal: `{id}`, `{+path}` and `{/seg}`
 * are strings, `{/segs*}` an array of strings (possibly empty), and each query variable of
 * `{?a,b}` / `{&c}` an optional string. Completion providers may only name those variables (a type
 * error, and for JavaScript callers a refusal when the catalog is built).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Completion from "@snodo/core/Completion"
 * import * as Content from "@snodo/core/Content"
 * import * as ResourceTemplate from "@snodo/core/ResourceTemplate"
 *
 * const posts = ResourceTemplate.make({
 *   uriTemplate: "users://{id}/posts{?page}",
 *   name: "user-posts",
 *   complete: { id: Completion.fromList(["ada", "grace"]) }
 * }, ({ uri, variables }) => // variables: { readonly id: string; readonly page?: string }
 *   Effect.succeed(Content.textContents(uri, `posts of ${variables.id}, page ${variables.page ?? "1"}`)))
 * ```
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type * as Completion from "./Completion.ts"
import type { CacheHint, ReadResult } from "./Resource.ts"
import type { Annotations, Icon } from "./Tool.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/ResourceTemplate")

/**
 * What `resources/templates/list` says of a template.
 *
 * @category models
 * @since 0.1.0
 */
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

/**
 * Variables of a template not known at compile time.
 *
 * @category models
 * @since 0.1.0
 */
export type AnyVariables = Readonly<Record<string, string | ReadonlyArray<string>>>

/**
 * What a template read receives.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadRequest<V = AnyVariables> {
  readonly uri: string
  readonly variables: V
}

type Expressions<T extends string> = T extends `${string}{${infer E}}${infer Rest}` ? E | Expressions<Rest> : never
type Names<L extends string> = L extends `${infer Head},${infer Rest}` ? Head | Names<Rest> : L
type Single<E extends string> = E extends `+${infer N}` ? N
  : E extends `/${infer N}` ? N extends `${string}*` ? never : N
  : E extends `?${string}` | `&${string}` ? never
  : E
type Exploded<E extends string> = E extends `/${infer N}*` ? N : never
type Query<E extends string> = E extends `?${infer L}` ? Names<L> : E extends `&${infer L}` ? Names<L> : never
type Simplify<A> = { [K in keyof A]: A[K] } & {}

/**
 * The variables a URI template binds, parsed from its literal type: `{id}`, `{+path}`, `{/seg}` →
 * `string`; `{/segs*}` → `ReadonlyArray<string>`; query variables (`{?a,b}`, `{&c}`) → optional
 * `string`. A template typed only as `string` gives {@link AnyVariables}.
 *
 * @example
 * ```ts
 * import type * as ResourceTemplate from "@snodo/core/ResourceTemplate"
 *
 * type V = ResourceTemplate.Variables<"files://{+root}{/path*}{?rev}">
 * // { readonly root: string; readonly path: ReadonlyArray<string>; readonly rev?: string }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Variables<T extends string> = string extends T ? AnyVariables : Simplify<
  & { readonly [K in Single<Expressions<T>>]: string }
  & { readonly [K in Exploded<Expressions<T>>]: ReadonlyArray<string> }
  & { readonly [K in Query<Expressions<T>>]?: string }
>

/**
 * Completion providers of a template: keyed by its variables only.
 *
 * @category models
 * @since 0.1.0
 */
export type Completions<T extends string, R = never> = string extends T ? Completion.Providers<R>
  : { readonly [K in keyof Variables<T>]?: Completion.Provider<R> }

/**
 * A template handler may answer `undefined`: no resource at that URI (-32602 "Resource not found").
 *
 * @category models
 * @since 0.1.0
 */
export type TemplateReadResult = ReadResult | undefined

/**
 * A defined template.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResourceTemplate<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly description: Description
  readonly cache: CacheHint | undefined
  readonly complete: Completion.Providers<R>
  readonly read: (request: ReadRequest) => Effect.Effect<TemplateReadResult, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`), shared by every URI it matches. */
  readonly limits: ComponentOptions.Limits
}

/**
 * Whether a value is a template.
 *
 * @category guards
 * @since 0.1.0
 */
export const isResourceTemplate = (u: unknown): u is ResourceTemplate<unknown> =>
  typeof u === "object" && u !== null && TypeId in u

/**
 * Defines a template. The handler receives the URI read and the variables it bound, typed from
 * the template literal (see {@link Variables}); it may answer `undefined` for "no such resource".
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <const T extends string, E = never, R = never, RC = never>(
  description: Description & {
    readonly uriTemplate: T
    readonly cache?: CacheHint
    readonly complete?: Completions<T, RC>
  } & ComponentOptions.ComponentOptions,
  read: (request: ReadRequest<Variables<T>>) => Effect.Effect<TemplateReadResult | InputRequired, E, R>
): ResourceTemplate<R | RC> => {
  const { limits, rest: { cache, complete, ...rest } } = ComponentOptions.split(description)
  // A returned InputRequired ends the round before the read is shaped (see internal/Round).
  return {
    [TypeId]: TypeId,
    description: rest,
    cache,
    complete: (complete ?? {}) as Completion.Providers<RC>,
    // The catalog matches the URI against this very template, so the variables have its shape.
    read: read as ResourceTemplate<R>["read"],
    limits
  }
}

