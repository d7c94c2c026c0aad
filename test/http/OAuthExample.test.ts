/**
 * `examples/07-oauth` runs: the official client with its `ClientCredentialsProvider` discovers the
 * example's authorization server, gets a token for the example's URI and calls `whoami`.
 */
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, expect, it } from "vitest"
import { layer } from "../../examples/07-oauth/server.ts"
import * as AuthorizationServer from "../support/AuthorizationServer.ts"
import { freePort } from "../support/FreePort.ts"

let as: AuthorizationServer.TestAuthorizationServer
let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url = ""

beforeAll(async () => {
  as = await AuthorizationServer.start({ notes: { secret: "n0tes", scopes: ["notes"] } })
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  runtime = ManagedRuntime.make(layer({ issuer: as.issuer, port }))
  await runtime.runPromise(Effect.service(HttpServer.HttpServer))
})

afterAll(async () => {
  await runtime?.dispose()
  await as?.stop()
})

it("the official client gets a token for the example and calls whoami", async () => {
  const client = new Client({ name: "example-07", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  const authProvider = new ClientCredentialsProvider({ clientId: "notes", clientSecret: "n0tes", expectedIssuer: as.issuer })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }))
  try {
    expect((await client.callTool({ name: "whoami", arguments: {} })).structuredContent).toEqual({ subject: `client:${as.issuer}#notes`, scopes: ["notes"] })
  } finally {
    await client.close()
  }
})
