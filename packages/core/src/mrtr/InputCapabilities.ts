/**
 * Which client capabilities an input request needs, checked against the capabilities the current
 * request declared (never an earlier one).
 *
 * - form elicitation: `elicitation.form`, or an empty `elicitation` object (the spec's backwards
 *   compatible spelling of form-only);
 * - URL elicitation: `elicitation.url`;
 * - sampling: `sampling`, plus `sampling.tools` when tools are offered and `sampling.context` when
 *   `includeContext` is not `"none"`;
 * - roots: `roots`.
 *
 * What is missing is a ClientCapabilities fragment; fragments of several requests merge into the
 * `requiredCapabilities` of one -32021.
 *
 * @since 0.1.0
 */
import { MissingRequiredClientCapability } from "@snodo/protocol/jsonrpc/McpError"
import { isObject } from "../pipeline/internal/IsObject.ts"

/**
 * A ClientCapabilities fragment.
 *
 * @category models
 * @since 0.1.0
 */
export type Fragment = Readonly<Record<string, unknown>>

const objectAt = (record: unknown, key: string): Record<string, unknown> | undefined => {
  if (!isObject(record)) return undefined
  const value = record[key]
  return isObject(value) ? value : undefined
}

/**
 * What the client lacks to receive this wire input request, or `undefined` when it may be sent.
 *
 * @category combinators
 * @since 0.1.0
 */
export const missing = (
  request: { readonly method: string; readonly params?: unknown },
  capabilities: Readonly<Record<string, unknown>>
): Fragment | undefined => {
  const params = isObject(request.params) ? request.params : {}
  switch (request.method) {
    case "elicitation/create": {
      const elicitation = objectAt(capabilities, "elicitation")
      if (params["mode"] === "url") {
        return objectAt(elicitation, "url") === undefined ? { elicitation: { url: {} } } : undefined
      }
      const formOnly = elicitation !== undefined && elicitation["form"] === undefined && elicitation["url"] === undefined
      return formOnly || objectAt(elicitation, "form") !== undefined ? undefined : { elicitation: { form: {} } }
    }
    case "sampling/createMessage": {
      const sampling = objectAt(capabilities, "sampling")
      const needed: Record<string, unknown> = {}
      const tools = params["tools"]
      if (Array.isArray(tools) && tools.length > 0 && objectAt(sampling, "tools") === undefined) needed["tools"] = {}
      const context = params["includeContext"]
      if (context !== undefined && context !== "none" && objectAt(sampling, "context") === undefined) needed["context"] = {}
      return sampling === undefined || Object.keys(needed).length > 0 ? { sampling: needed } : undefined
    }
    case "roots/list":
      return objectAt(capabilities, "roots") === undefined ? { roots: {} } : undefined
    default:
      return { [request.method]: {} }
  }
}

/**
 * What the client lacks of a required fragment (for handlers that need a capability outright).
 *
 * @category combinators
 * @since 0.1.0
 */
export const lacking = (required: Fragment, declared: unknown): Fragment | undefined => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(required)) {
    const have = isObject(declared) ? declared[key] : undefined
    if (!isObject(have)) {
      out[key] = value
      continue
    }
    if (isObject(value)) {
      const inner = lacking(value, have)
      if (inner !== undefined) out[key] = inner
    }
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/**
 * Deep-merges fragments.
 *
 * @category combinators
 * @since 0.1.0
 */
export const merge = (fragments: ReadonlyArray<Fragment>): Fragment => {
  const out: Record<string, unknown> = {}
  for (const fragment of fragments) {
    for (const [key, value] of Object.entries(fragment)) {
      const existing = out[key]
      out[key] = isObject(existing) && isObject(value) ? merge([existing, value]) : value
    }
  }
  return out
}

/**
 * The -32021 for a merged fragment.
 *
 * @category combinators
 * @since 0.1.0
 */
export const refusal = (required: Fragment): MissingRequiredClientCapability =>
  new MissingRequiredClientCapability({
    message: `Missing required client capability: ${Object.keys(required).join(", ")}`,
    data: { requiredCapabilities: required }
  })
