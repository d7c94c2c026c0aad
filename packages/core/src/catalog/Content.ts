/**
 * Constructors for content blocks that tools and prompts return.
 *
 * @example
 * ```ts
 * import * as Content from "@snodo/core/Content"
 *
 * const blocks = [Content.text("hello"), Content.image(pngBase64, "image/png")]
 * ```
 *
 * @since 0.1.0
 */
import type * as WireContent from "@snodo/protocol/wire/Content"

/**
 * A content block exactly as written on the wire.
 *
 * @category models
 * @since 0.1.0
 */
export type Block =
  | { readonly type: "text"; readonly text: string; readonly annotations?: Annotations; readonly _meta?: Record<string, unknown> }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string; readonly annotations?: Annotations }
  | { readonly type: "audio"; readonly data: string; readonly mimeType: string; readonly annotations?: Annotations }
  | { readonly type: "resource"; readonly resource: ResourceContents; readonly annotations?: Annotations }
  | ({ readonly type: "resource_link"; readonly uri: string; readonly name: string } & Readonly<Record<string, unknown>>)

/**
 * Audience, priority and last-modified hints: the wire's `Annotations`.
 *
 * @category models
 * @since 0.1.0
 */
export type Annotations = WireContent.Annotations

/**
 * Text or base64 blob contents of a resource.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string; readonly _meta?: Record<string, unknown> }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string; readonly _meta?: Record<string, unknown> }

/**
 * A text block.
 *
 * @category combinators
 * @since 0.1.0
 */
export const text = (value: string, annotations?: Annotations): Block =>
  annotations === undefined ? { type: "text", text: value } : { type: "text", text: value, annotations }

const base64 = (data: string | Uint8Array): string =>
  typeof data === "string" ? data : Buffer.from(data).toString("base64")

/**
 * An image block; `data` is base64 text or raw bytes (encoded for you).
 *
 * @category combinators
 * @since 0.1.0
 */
export const image = (data: string | Uint8Array, mimeType: string): Block => ({ type: "image", data: base64(data), mimeType })

/**
 * An audio block; `data` is base64 text or raw bytes (encoded for you).
 *
 * @category combinators
 * @since 0.1.0
 */
export const audio = (data: string | Uint8Array, mimeType: string): Block => ({ type: "audio", data: base64(data), mimeType })

/**
 * An embedded resource block.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resource = (contents: ResourceContents): Block => ({ type: "resource", resource: contents })

/**
 * A link to a resource the client may read.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resourceLink = (
  link: { readonly uri: string; readonly name: string; readonly mimeType?: string; readonly description?: string; readonly title?: string }
): Block => ({ type: "resource_link", ...link })

/**
 * Text contents of a resource.
 *
 * @category combinators
 * @since 0.1.0
 */
export const textContents = (uri: string, value: string, mimeType?: string): ResourceContents =>
  mimeType === undefined ? { uri, text: value } : { uri, text: value, mimeType }

/**
 * Binary contents of a resource; bytes are base64-encoded for you.
 *
 * @category combinators
 * @since 0.1.0
 */
export const blobContents = (uri: string, data: string | Uint8Array, mimeType?: string): ResourceContents =>
  mimeType === undefined ? { uri, blob: base64(data) } : { uri, blob: base64(data), mimeType }
