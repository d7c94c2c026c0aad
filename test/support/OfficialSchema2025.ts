/**
 * Validation against the official MCP 2025-11-25 `schema.json` (the test fixture), with Ajv (Draft
 * 2020-12, formats on), for what the initialize-era dialect writes: results by the method they
 * answer, errors, notifications, and the server-to-client requests of `Input`.
 *
 * The older schema lets every result carry extra members, so a 2026-07-28 shape would pass it; the
 * members only 2026-07-28 has (`resultType`, `ttlMs`, `cacheScope`, the server-info `_meta`, the
 * listen stream's subscription id) are therefore refused here explicitly.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { readFileSync } from "node:fs"

const schemaUrl = new URL("../fixtures/mcp-2025-11-25/schema.json", import.meta.url)
const schemaId = "https://modelcontextprotocol.io/schema/2025-11-25/schema.json"

const document = JSON.parse(readFileSync(schemaUrl, "utf8")) as { readonly $defs: Readonly<Record<string, unknown>> }

const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true })
addFormats.default(ajv)
ajv.addSchema({ ...document, $id: schemaId })

const compiled = new Map<string, ValidateFunction>()

const describe = (name: string, error: ErrorObject): string =>
  `${name}${error.instancePath === "" ? "" : ` at ${error.instancePath}`}: ${error.message ?? error.keyword}`

/** Validates `value` against the definition `name` of the 2025-11-25 schema (empty = valid). */
export const validateDefinition2025 = (name: string, value: unknown): ReadonlyArray<string> => {
  if (!Object.hasOwn(document.$defs, name)) return [`unknown definition ${JSON.stringify(name)}`]
  let validate = compiled.get(name)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${schemaId}#/$defs/${name}` })
    compiled.set(name, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map((error) => describe(name, error))
}

/** The result definition of each request method the dialect serves. */
const resultByMethod: Readonly<Record<string, string>> = {
  "initialize": "InitializeResult",
  "ping": "EmptyResult",
  "logging/setLevel": "EmptyResult",
  "resources/subscribe": "EmptyResult",
  "resources/unsubscribe": "EmptyResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "resources/list": "ListResourcesResult",
  "resources/read": "ReadResourceResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "prompts/list": "ListPromptsResult",
  "prompts/get": "GetPromptResult",
  "completion/complete": "CompleteResult"
}

const notificationByMethod: Readonly<Record<string, string>> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/cancelled": "CancelledNotification"
}

const requestByMethod: Readonly<Record<string, string>> = {
  "elicitation/create": "ElicitRequest",
  "sampling/createMessage": "CreateMessageRequest",
  "roots/list": "ListRootsRequest",
  "ping": "PingRequest"
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Members of 2026-07-28 a 2025-11-25 message must not carry. */
const modernOnly = (message: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const errors: Array<string> = []
  const result = message["result"]
  if (isRecord(result)) {
    for (const key of ["resultType", "ttlMs", "cacheScope"]) if (key in result) errors.push(`result carries the 2026-07-28 member ${key}`)
    const meta = result["_meta"]
    if (isRecord(meta) && "io.modelcontextprotocol/serverInfo" in meta) errors.push("result carries the 2026-07-28 serverInfo _meta")
  }
  const params = message["params"]
  const meta = isRecord(params) ? params["_meta"] : undefined
  if (isRecord(meta) && "io.modelcontextprotocol/subscriptionId" in meta) errors.push("notification carries a 2026-07-28 subscription id")
  return errors
}

/**
 * Validates a message the server writes under 2025-11-25 against the concrete definition for it:
 * a result by the method of the request it answers, an error response, a notification or a
 * server-to-client request by its method. Anything it cannot place is an error, never a pass.
 */
export const validateServerMessage2025 = (message: unknown, context: { readonly requestMethod?: string }): ReadonlyArray<string> => {
  if (!isRecord(message)) return ["a message must be a JSON object"]
  const kinds = ["method", "result", "error"].filter((key) => key in message)
  if (kinds.length !== 1) return [`a message must have exactly one of method, result, error; got [${kinds}]`]
  const errors = [...modernOnly(message)]
  if ("result" in message) {
    const method = context.requestMethod
    const name = method === undefined ? undefined : resultByMethod[method]
    if (name === undefined) return [...errors, `no result definition for request method ${JSON.stringify(method)}`]
    return [...errors, ...validateDefinition2025("JSONRPCResultResponse", message), ...validateDefinition2025(name, message["result"])]
  }
  if ("error" in message) return [...errors, ...validateDefinition2025("JSONRPCErrorResponse", message)]
  const method = message["method"]
  const name = typeof method !== "string" ? undefined : "id" in message ? requestByMethod[method] : notificationByMethod[method]
  if (name === undefined) return [...errors, `no definition for ${"id" in message ? "request" : "notification"} ${JSON.stringify(method)}`]
  return [...errors, ...validateDefinition2025(name, message)]
}
