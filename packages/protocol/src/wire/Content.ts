/**
 * Content blocks of tool results, prompt messages and sampling messages, and resource contents.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Icons, MetaObject } from "./Meta.ts"

const Base64 = Schema.String.check(Schema.isBase64())
const meta = Schema.optionalKey(MetaObject)

/**
 * The sender or recipient of a message: `"user"` or `"assistant"`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Role = Schema.Literals(["user", "assistant"])
/**
 * @category models
 * @since 0.1.0
 */
export type Role = typeof Role.Type

/**
 * Display hints for the client: audience, priority (0..1), last modification time.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Annotations = Schema.Struct({
  audience: Schema.optionalKey(Schema.Array(Role)),
  priority: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  lastModified: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Annotations = typeof Annotations.Type

const annotations = Schema.optionalKey(Annotations)

/**
 * Text provided to or from an LLM.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations,
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type TextContent = typeof TextContent.Type

/**
 * A base64-encoded image.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Base64,
  mimeType: Schema.String,
  annotations,
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type ImageContent = typeof ImageContent.Type

/**
 * Base64-encoded audio.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Base64,
  mimeType: Schema.String,
  annotations,
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type AudioContent = typeof AudioContent.Type

/**
 * A link to a resource the server can read (the fields of `Resource` plus `type`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  annotations,
  size: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * The text contents of a resource.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  _meta: meta,
  text: Schema.String
})
/**
 * @category models
 * @since 0.1.0
 */
export type TextResourceContents = typeof TextResourceContents.Type

/**
 * The binary contents of a resource, base64-encoded.
 *
 * @category schemas
 * @since 0.1.0
 */
export const BlobResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  _meta: meta,
  blob: Base64
})
/**
 * @category models
 * @since 0.1.0
 */
export type BlobResourceContents = typeof BlobResourceContents.Type

/**
 * Resource contents embedded into a prompt or tool result.
 *
 * @category schemas
 * @since 0.1.0
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: Schema.Union([TextResourceContents, BlobResourceContents]),
  annotations,
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * A content block of a tool result or prompt message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
/**
 * @category models
 * @since 0.1.0
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A request from the assistant to call a tool (sampling).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolUseContent = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Record(Schema.String, Schema.Unknown),
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * The result of a tool use, given back to the assistant (sampling).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultContent = Schema.Struct({
  type: Schema.Literal("tool_result"),
  toolUseId: Schema.String,
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optionalKey(Schema.Unknown),
  isError: Schema.optionalKey(Schema.Boolean),
  _meta: meta
})
/**
 * @category models
 * @since 0.1.0
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * A content block of a sampling message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SamplingMessageContentBlock = Schema.Union([
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent
])
/**
 * @category models
 * @since 0.1.0
 */
export type SamplingMessageContentBlock = typeof SamplingMessageContentBlock.Type
