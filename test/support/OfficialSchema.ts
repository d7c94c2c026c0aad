/**
 * Validation against the official MCP 2026-07-28 `schema.json` (the test fixture), with Ajv (Draft
 * 2020-12, formats on). Every check names a concrete definition: the permissive root and the
 * `anyOf` response envelopes alone would accept almost any object carrying a `resultType`.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { readdirSync, readFileSync } from "node:fs"

const fixtureUrl = new URL("../fixtures/mcp-2026-07-28/", import.meta.url)
const schemaUrl = new URL("schema.json", fixtureUrl)
const examplesUrl = new URL("examples/", fixtureUrl)
const schemaId = "https://modelcontextprotocol.io/schema/2026-07-28/schema.json"

const document = JSON.parse(readFileSync(schemaUrl, "utf8")) as {
  readonly $defs: Readonly<Record<string, unknown>>
}

/** The names of every definition in the official schema. */
export const definitionNames: ReadonlyArray<string> = Object.keys(document.$defs).toSorted()

/** One official example: `examples/<typeName>/<file>`, an instance of definition `typeName`. */
export interface OfficialExample {
  readonly typeName: string
  readonly file: string
  readonly value: unknown
}

const readExamples = (typeName: string): ReadonlyArray<OfficialExample> =>
  readdirSync(new URL(`${typeName}/`, examplesUrl))
    .filter((file) => file.endsWith(".json"))
    .toSorted()
    .map((file) => ({
      typeName,
      file,
      value: JSON.parse(readFileSync(new URL(`${typeName}/${file}`, examplesUrl), "utf8")) as unknown
    }))

/** Every official example, in a stable order. */
export const officialExamples: ReadonlyArray<OfficialExample> = readdirSync(examplesUrl).toSorted().flatMap(readExamples)

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
addFormats.default(ajv)
ajv.addSchema({ ...document, $id: schemaId })

const compiled = new Map<string, ValidateFunction>()

const validatorFor = (name: string): ValidateFunction | undefined => {
  if (!Object.hasOwn(document.$defs, name)) return undefined
  let validate = compiled.get(name)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${schemaId}#/$defs/${name}` })
    compiled.set(name, validate)
  }
  return validate
}

const describe = (name: string, error: ErrorObject): string =>
  `${name}${error.instancePath === "" ? "" : ` at ${error.instancePath}`}: ${error.message ?? error.keyword}${
    error.keyword === "additionalProperties" || error.keyword === "const" || error.keyword === "enum"
      ? ` ${JSON.stringify(error.params)}`
      : ""
  }`

/**
 * Validates `value` against the official definition `name`; returns the errors (empty = valid).
 */
export const validateDefinition = (name: string, value: unknown): ReadonlyArray<string> => {
  const validate = validatorFor(name)
  if (validate === undefined) return [`unknown definition ${JSON.stringify(name)}`]
  if (validate(value)) return []
  return (validate.errors ?? []).map((error) => describe(name, error))
}

/** Result definition per request method, and whether the method may answer `input_required`. */
const resultByMethod: Readonly<Record<string, { readonly result: string; readonly inputRequired: boolean }>> = {
  "tools/call": { result: "CallToolResult", inputRequired: true },
  "tools/list": { result: "ListToolsResult", inputRequired: false },
  "resources/list": { result: "ListResourcesResult", inputRequired: false },
  "resources/read": { result: "ReadResourceResult", inputRequired: true },
  "resources/templates/list": { result: "ListResourceTemplatesResult", inputRequired: false },
  "prompts/list": { result: "ListPromptsResult", inputRequired: false },
  "prompts/get": { result: "GetPromptResult", inputRequired: true },
  "completion/complete": { result: "CompleteResult", inputRequired: false },
  "server/discover": { result: "DiscoverResult", inputRequired: false },
  "subscriptions/listen": { result: "SubscriptionsListenResult", inputRequired: false }
}

const notificationByMethod: Readonly<Record<string, string>> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
  "notifications/cancelled": "CancelledNotification"
}

/** Error responses with their own definition (the whole response is typed). */
const errorResponseByCode: Readonly<Record<number, string>> = {
  [-32020]: "HeaderMismatchError",
  [-32021]: "MissingRequiredClientCapabilityError",
  [-32022]: "UnsupportedProtocolVersionError"
}

/** Standard JSON-RPC errors, defined as error objects. */
const errorObjectByCode: Readonly<Record<number, string>> = {
  [-32700]: "ParseError",
  [-32600]: "InvalidRequestError",
  [-32601]: "MethodNotFoundError",
  [-32602]: "InvalidParamsError",
  [-32603]: "InternalError"
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const validateResult = (
  message: Readonly<Record<string, unknown>>,
  requestMethod: string | undefined
): ReadonlyArray<string> => {
  if (requestMethod === undefined) return ["a result response needs context.requestMethod"]
  const entry = resultByMethod[requestMethod]
  if (entry === undefined) return [`no result definition for request method ${JSON.stringify(requestMethod)}`]
  const result = message["result"]
  if (isRecord(result) && result["resultType"] === "input_required") {
    if (!entry.inputRequired) return [`${requestMethod} may not answer resultType "input_required"`]
    const errors = [
      ...validateDefinition("JSONRPCResultResponse", message),
      ...validateDefinition("InputRequiredResult", result)
    ]
    // Prose rule of InputRequiredResult that schema.json cannot express.
    if (!("inputRequests" in result) && !("requestState" in result)) {
      errors.push("InputRequiredResult: at least one of inputRequests or requestState must be present")
    }
    return errors
  }
  return [...validateDefinition(`${entry.result}Response`, message), ...validateDefinition(entry.result, result)]
}

const validateError = (message: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const errors = [...validateDefinition("JSONRPCErrorResponse", message)]
  const error = message["error"]
  const code = isRecord(error) ? error["code"] : undefined
  if (typeof code === "number") {
    const response = errorResponseByCode[code]
    if (response !== undefined) errors.push(...validateDefinition(response, message))
    const object = errorObjectByCode[code]
    if (object !== undefined) errors.push(...validateDefinition(object, error))
  }
  return errors
}

/**
 * Validates a message a server writes against the concrete official definition for it: a result
 * response by the method of the request it answers, an error response by its code, a notification by
 * its method. Anything the harness cannot place is an error, never a silent pass.
 */
export const validateServerMessage = (
  message: unknown,
  context: { readonly requestMethod?: string }
): ReadonlyArray<string> => {
  if (!isRecord(message)) return ["a message must be a JSON object"]
  const kinds = ["method", "result", "error"].filter((key) => key in message)
  if (kinds.length !== 1) return [`a message must have exactly one of method, result, error; got [${kinds}]`]
  if ("result" in message) return validateResult(message, context.requestMethod)
  if ("error" in message) return validateError(message)
  if ("id" in message) return ["servers do not send requests in 2026-07-28 (use input_required results)"]
  const method = message["method"]
  const name = typeof method === "string" ? notificationByMethod[method] : undefined
  if (name === undefined) return [`no notification definition for method ${JSON.stringify(method)}`]
  return validateDefinition(name, message)
}
