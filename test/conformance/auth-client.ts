/**
 * The client program the official conformance runner drives for its `auth/*` scenarios:
 *
 *   conformance client --command "node test/conformance/auth-client.ts" --scenario auth/metadata-default
 *
 * The runner passes the MCP server URL as the last argument, the scenario in
 * `MCP_CONFORMANCE_SCENARIO`, and scenario data in `MCP_CONFORMANCE_CONTEXT` (the pre-registered
 * client of `auth/pre-registration`). The program wraps `FetchHttpClient` with `OAuthClient` (the
 * authorization code flow, a loopback redirect URI, a Client ID Metadata Document URL, dynamic
 * registration as the fallback, the headless prompt the suite's auto-approving authorization
 * server needs) and makes the requests the scenarios expect as plain 2026-07-28 JSON-RPC POSTs:
 * `server/discover`, `tools/list`, `tools/call test-tool`. For the client credentials extension's
 * `auth/client-credentials-basic` it is a machine client (the client credentials grant with the
 * credentials of the context) instead. It exits 1 on the first failure (the
 * negative scenarios expect that) and writes what happened to stderr.
 */
import { Cause, Effect, Layer, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as AuthorizationPrompt from "../../packages/client/src/oauth/AuthorizationPrompt.ts"
import * as OAuthClient from "../../packages/client/src/oauth/OAuthClient.ts"
import * as TokenStore from "../../packages/client/src/oauth/TokenStore.ts"

/** The Client ID Metadata Document URL the suite's `auth/basic-cimd` scenario expects. */
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"
const redirectUri = "http://localhost:3000/callback"
const version = "2026-07-28"

const serverUrl = process.argv.at(-1)!
const Context = Schema.Struct({ client_id: Schema.optional(Schema.String), client_secret: Schema.optional(Schema.String) })
const context = Schema.decodeUnknownSync(Context)(JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}"))

const preRegistered = context.client_id === undefined ? [] : [{ clientId: context.client_id, clientSecret: context.client_secret }]
// The client credentials extension's scenario: a machine client with the credentials it is given.
const machine = process.env["MCP_CONFORMANCE_SCENARIO"] === "auth/client-credentials-basic"

const OAuth = OAuthClient.layer({
  clientName: "snodo-conformance-auth-client",
  flow: machine ? { grant: "client_credentials" } : { grant: "authorization_code", redirectUri },
  clientMetadataUrl,
  preRegistered
}).pipe(Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory, AuthorizationPrompt.layerHeadless]))

let nextId = 1
const rpc = (method: string, params: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": version,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "snodo-conformance-auth-client", version: "0.1.0" }
        }
      }
    }
    const name = typeof params["name"] === "string" ? { "mcp-name": params["name"] } : {}
    const response = yield* client.execute(
      HttpClientRequest.post(serverUrl, {
        headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": version, "mcp-method": method, ...name }
      }).pipe(HttpClientRequest.bodyJsonUnsafe(body))
    )
    const text = yield* response.text
    if (response.status !== 200) return yield* Effect.fail(new Error(`${method}: HTTP ${response.status} ${text}`))
    process.stderr.write(`${method}: ${text}\n`)
    return text
  })

const program = Effect.gen(function*() {
  yield* rpc("server/discover")
  yield* rpc("tools/list")
  yield* rpc("tools/call", { name: "test-tool", arguments: {} })
})

const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(OAuth)))
if (exit._tag === "Failure") {
  process.stderr.write(`${process.env["MCP_CONFORMANCE_SCENARIO"]}: ${Cause.pretty(exit.cause)}\n`)
  process.exitCode = 1
}
