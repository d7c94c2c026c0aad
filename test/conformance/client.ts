/**
 * The conformance client: `@snodo/client` in the shape the official runner expects.
 *
 *   npx conformance client --command "node --conditions=@snodo/source test/conformance/client.ts" --requirements 2026-07-28
 *
 * The runner starts it with the server's URL as its last argument, the scenario's name in
 * `MCP_CONFORMANCE_SCENARIO` and, for some scenarios, the calls to make in
 * `MCP_CONFORMANCE_CONTEXT` (`{ toolCalls: [{ name, arguments }] }`). It does what an application
 * does: connects (2026-07-28 first, 2025-11-25 as the fallback), lists and reads what the server
 * offers, calls tools (the context's calls, or each listed tool with arguments made from its
 * schema), and answers input requests with scripted handlers. Exit code 0 unless connecting fails.
 *
 * In the `auth/*` scenarios the server wants OAuth: the client's `HttpClient` is wrapped by
 * `OAuthClient` (the authorization code flow with a loopback redirect URI, the Client ID Metadata
 * Document URL the suite expects, the pre-registered client of `MCP_CONFORMANCE_CONTEXT`
 * (`client_id`, `client_secret`) when it gives one, dynamic registration otherwise, and the headless
 * prompt the suite's auto-approving authorization server needs); in the extension scenarios it is
 * a machine client (client credentials with a secret or `private_key_jwt`, the JWT bearer grant
 * with a workload identity or an ID-JAG from token exchange) or a DPoP client (see `authOptions`).
 * A refused authorization fails the connection, so the negative scenarios see the client stop.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Predicate } from "effect"
import { FetchHttpClient } from "effect/http"
import {
  AuthorizationPrompt,
  ClientAssertion,
  Dpop,
  InputHandlers,
  McpClient,
  OAuthClient,
  Skills,
  StreamableHttpClientTransport,
  TokenExchange,
  TokenStore
} from "@snodo/client"

const url = process.argv.at(-1) ?? ""
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const context: unknown = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}")

interface ToolCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

const contextCalls = (): ReadonlyArray<ToolCall> | undefined => {
  if (!Predicate.isObject(context) || !Array.isArray(context["toolCalls"])) return undefined
  return context["toolCalls"].filter(Predicate.isObject).map((call) => ({
    name: String(call["name"]),
    arguments: Predicate.isObject(call["arguments"]) ? call["arguments"] : {}
  }))
}

/** A value for each required property of a schema, by its type. */
const argumentsFor = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const properties = Predicate.isObject(schema["properties"]) ? schema["properties"] : {}
  const required = Array.isArray(schema["required"]) ? schema["required"].map(String) : []
  const out: Record<string, unknown> = {}
  for (const name of required) {
    const property = properties[name]
    const type = Predicate.isObject(property) ? property["type"] : undefined
    out[name] = type === "number" || type === "integer" ? 1 : type === "boolean" ? true : type === "object" ? {} : type === "array" ? [] : "test"
  }
  return out
}

/** `json-schema-2020-12-preservation`: the focal tool's inputSchema, as the client holds it, echoed back verbatim. */
const echoCall = (tools: ReadonlyArray<{ readonly name: string; readonly inputSchema: Readonly<Record<string, unknown>> }>): ToolCall | undefined => {
  const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool")
  return focal === undefined ? undefined : { name: "json_schema_echo", arguments: { schema: focal.inputSchema } }
}

/**
 * The Skills scenarios (`sep-2640-client-*`): list the skills and read nothing ahead; in the
 * `-verify-*` ones, load the first skill (its SKILL.md, verified against the entry) and only then
 * its other files. A verification failure ends the load: the tampered skill is not used.
 */
const skillsProgram = Effect.gen(function*() {
  const skills = yield* Skills.make
  const listed = yield* skills.list
  const first = listed[0]
  if (scenario === "sep-2640-client-no-prefetch" || first === undefined) return
  yield* skills.read(first).pipe(
    Effect.andThen(Effect.forEach(first.resources.filter((entry) => entry.uri !== first.uri), (entry) => skills.read(first, entry.uri))),
    Effect.catchTag("SkillVerificationError", (error) => Effect.logWarning(`${scenario}: ${error.reason}: ${error.message}`))
  )
})

const handlers = InputHandlers.layer({
  // a form starts filled with the defaults the server declared (SEP-1034)
  applyDefaults: true,
  elicit: (request) =>
    Effect.succeed(
      request.mode === "url"
        ? { action: "accept" as const }
        : { action: "accept" as const, content: argumentsFor(request.requestedSchema) as Record<string, string> }
    ),
  sample: () => Effect.succeed({ role: "assistant" as const, content: { type: "text" as const, text: "conformance" }, model: "scripted" }),
  roots: Effect.succeed([{ uri: "file:///workspace", name: "workspace" }])
})

const program = Effect.gen(function*() {
  const client = yield* McpClient
  const tools = yield* client.listTools
  const echo = scenario === "json-schema-2020-12-preservation" ? echoCall(tools) : undefined
  const calls = contextCalls() ?? (echo === undefined ? undefined : [echo]) ??
    tools.map((tool) => ({ name: tool.name, arguments: argumentsFor(tool.inputSchema) }))
  for (const call of calls) {
    yield* client.callTool(call.name, call.arguments).pipe(
      Effect.tapError((error) => Effect.logWarning(`${scenario}: ${call.name}: ${error._tag}: ${error.message}`)),
      Effect.ignore
    )
  }
  if (scenario.startsWith("http-standard-headers")) {
    const resources = yield* Effect.orElseSucceed(client.listResources, () => [])
    const first = resources[0]
    if (first !== undefined) yield* Effect.ignore(client.readResource(first.uri))
    const prompts = yield* Effect.orElseSucceed(client.listPrompts, () => [])
    const prompt = prompts[0]
    if (prompt !== undefined) yield* Effect.ignore(client.getPrompt(prompt.name, {}))
  }
})

const text = (key: string): string | undefined =>
  Predicate.isObject(context) && typeof context[key] === "string" ? context[key] : undefined

/**
 * The OAuth client options of each `auth/*` scenario. The extension scenarios hand the client what
 * an application would hold: a private key for `private_key_jwt` (`auth/client-credentials-jwt`),
 * an enterprise IdP's ID token and the IdP's token endpoint (`auth/enterprise-managed-authorization`:
 * token exchange for an ID-JAG, then the JWT bearer grant), a workload identity JWT
 * (`auth/wif-jwt-bearer`); the DPoP scenarios (`auth/dpop`, `auth/dpop-nonce`) run the authorization
 * code flow with a DPoP key this program generates, as an application that chooses a per-process
 * key does.
 */
const authOptions = Effect.gen(function*() {
  const clientId = text("client_id")
  const clientSecret = text("client_secret")
  const base = {
    clientName: "snodo-conformance-client",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    preRegistered: clientId === undefined ? [] : [{ clientId, clientSecret }]
  }
  const userFlow = { grant: "authorization_code" as const, redirectUri: "http://localhost:3000/callback" }
  switch (scenario) {
    case "auth/client-credentials-basic":
      return { ...base, flow: { grant: "client_credentials" as const } }
    case "auth/client-credentials-jwt": {
      const signingKey = yield* ClientAssertion.fromPkcs8(text("private_key_pem") ?? "", text("signing_algorithm") ?? "ES256")
      return { ...base, flow: { grant: "client_credentials" as const }, preRegistered: [{ clientId: clientId ?? "", signingKey }] }
    }
    case "auth/enterprise-managed-authorization":
      return {
        ...base,
        flow: {
          grant: "jwt_bearer" as const,
          assertion: TokenExchange.idJag({
            tokenEndpoint: text("idp_token_endpoint") ?? "",
            client: { clientId: text("idp_client_id") ?? "", authMethod: "none" },
            subjectToken: text("idp_id_token") ?? ""
          })
        }
      }
    case "auth/wif-jwt-bearer":
      return { ...base, flow: { grant: "jwt_bearer" as const, assertion: () => Effect.succeed(text("valid_jwt") ?? "") } }
    case "auth/dpop":
    case "auth/dpop-nonce":
      return { ...base, flow: userFlow, dpop: yield* Dpop.generate("ES256") }
    default:
      return { ...base, flow: userFlow }
  }
})

/** The OAuth client of the `auth/*` scenarios, wrapping the fetch-based `HttpClient`. */
const Authorized = Layer.unwrap(Effect.map(authOptions, OAuthClient.layer)).pipe(
  Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory, AuthorizationPrompt.layerHeadless])
)

const ClientLayer = McpClient.layer({ clientInfo: { name: "snodo-conformance-client", version: "0.1.0" }, probeTimeout: "60 seconds" }).pipe(
  Layer.provide(StreamableHttpClientTransport.layer({ url })),
  Layer.provide(scenario.startsWith("auth/") ? Authorized : FetchHttpClient.layer),
  Layer.provide(handlers)
)

const main = scenario.startsWith("sep-2640-client-") ? skillsProgram : program

main.pipe(Effect.provide(ClientLayer), NodeRuntime.runMain)
