/**
 * Extension negotiation, per request: a request may use an extension only when its own
 * `clientCapabilities.extensions` names it (nothing carries over from earlier requests); otherwise
 * it is answered -32021 naming the extension.
 *
 * @since 0.1.0
 */
import { MissingRequiredClientCapability } from "@snodo/protocol/jsonrpc/McpError"

/**
 * Whether request capabilities name an extension (per request: nothing carries over).
 *
 * @category combinators
 * @since 0.1.0
 */
export const negotiated = (clientCapabilities: Readonly<Record<string, unknown>>, name: string): boolean => {
  const extensions = clientCapabilities["extensions"]
  if (typeof extensions !== "object" || extensions === null) return false
  const settings = (extensions as Record<string, unknown>)[name]
  return typeof settings === "object" && settings !== null
}

/**
 * The -32021 for a request that needs an extension it did not declare.
 *
 * @category combinators
 * @since 0.1.0
 */
export const required = (name: string, message = "Missing required client capability"): MissingRequiredClientCapability =>
  new MissingRequiredClientCapability({ message, data: { requiredCapabilities: { extensions: { [name]: {} } } } })
