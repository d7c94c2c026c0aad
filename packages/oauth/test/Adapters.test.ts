/**
 * The resource server on both adapters: NodeServe (the hook before the body) and a mounted
 * `McpHttp` route behind `ResourceServer.middleware`, each with its metadata routes. Both answer
 * the same challenges, give handlers the verified principal, map an insufficient scope refusal to
 * 403, and end a listen stream when its token expires. An authorization server that cannot be
 * reached makes requests 503, never 401.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Authorization, McpRequest, McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as McpHttp from "@snodo/http/McpHttp"
import { Effect, Exit, Layer, ManagedRuntime, Schema } from "effect"
import { FetchHttpClient, HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import { errorOf, expectValid, post, request, send } from "../../http/test/support/Raw.ts"
import * as AuthorizationServer from "../../../test/support/AuthorizationServer.ts"

const whoami = Tool.make("whoami", {
  input: Schema.Struct({}),
  output: Schema.Struct({ id: Schema.String, scopes: Schema.Array(Schema.String), client: Schema.String })
}, () =>
  Effect.map(McpRequest.current, ({ principal }) => ({
    id: principal.id,
    scopes: Scopes.granted(principal),
    client: String(principal.claims["client_id"])
  })))

const wipe = Tool.make("wipe", { input: Schema.Struct({}) }, () => Effect.succeed("wiped"))

const Server = McpServer.make({ name: "oauth-adapters", version: "1.0.0" }).add(whoami, wipe)
const Policy = Authorization.layer(Scopes.requireScopes({ default: ["mcp"], tools: { wipe: ["mcp", "admin"] } }))

let as: AuthorizationServer.TestAuthorizationServer
const runtimes: Array<ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>> = []
const servers: Record<"NodeServe" | "McpHttp", { url: string; metadataUrl: string }> = {
  NodeServe: { url: "", metadataUrl: "" },
  McpHttp: { url: "", metadataUrl: "" }
}

const portOf = async (runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>) => {
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return address.port
}

/** A port the OS says is free now (the resource URI names it). */
const freePort = async () => {
  const probe = ManagedRuntime.make(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  const port = await portOf(probe)
  await probe.dispose()
  return port
}

const oauth = (resource: string, issuer: string) =>
  ResourceServer.layer({ resource, scopesSupported: ["mcp"] }).pipe(
    Layer.provide(JwtVerifier.layer({ issuer, leeway: 0, timeout: "2 seconds" })),
    Layer.provide(FetchHttpClient.layer)
  )

const App = Server.layer.pipe(Layer.provide(Policy), Layer.provide(SubscriptionHub.layerMemory()))

beforeAll(async () => {
  as = await AuthorizationServer.start({})
  for (const adapter of ["NodeServe", "McpHttp"] as const) {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/mcp`
    const serving = adapter === "NodeServe"
      ? ResourceServer.layerServe({ port })
      : HttpRouter.serve(
        Layer.mergeAll(McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(ResourceServer.middleware.layer)), ResourceServer.layerMetadata),
        { disableLogger: true, disableListenLog: true }
      ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })))
    const runtime = ManagedRuntime.make(serving.pipe(Layer.provide(oauth(url, as.issuer)), Layer.provide(App)))
    runtimes.push(runtime)
    await portOf(runtime)
    servers[adapter] = { url, metadataUrl: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp` }
  }
})

afterAll(async () => {
  for (const runtime of runtimes) await runtime.dispose()
  await as?.stop()
})

const adapters = ["NodeServe", "McpHttp"] as const
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe.each(adapters)("ResourceServer on %s", (adapter) => {
  const server = () => servers[adapter]

  it("challenges a request without a token, or with another scheme, and serves the metadata", async () => {
    for (const headers of [undefined, { authorization: "Basic YTpi" }]) {
      const response = await post(server().url, request("tools/list"), headers)
      expect(response.status).toBe(401)
      expect(response.headers["www-authenticate"]).toBe(`Bearer resource_metadata="${server().metadataUrl}", scope="mcp"`)
      expectValid(response)
    }
    const malformed = await post(server().url, request("tools/list"), { authorization: "Bearer a b" })
    expect(malformed.headers["www-authenticate"]).toContain('error="invalid_token"')
    const metadata = await fetch(server().metadataUrl)
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*")
    expect(await metadata.json()).toMatchObject({ resource: server().url, authorization_servers: [as.issuer] })
  })

  it("gives the handler the verified principal", async () => {
    const token = await as.mint({ sub: "ada", client_id: "cli", aud: server().url, scope: "mcp" })
    const response = await post(server().url, request("tools/call", { name: "whoami", arguments: {} }), bearer(token))
    expect(response.status).toBe(200)
    expect((response.messages[0]!["result"] as { structuredContent: unknown }).structuredContent).toEqual({ id: `user:${as.issuer}#ada`, scopes: ["mcp"], client: "cli" })
  })

  it("answers an insufficient scope refusal 403 with the challenge", async () => {
    const token = await as.mint({ aud: server().url, scope: "mcp" })
    const response = await post(server().url, request("tools/call", { name: "wipe", arguments: {} }), bearer(token))
    expect(response.status).toBe(403)
    expect(response.headers["www-authenticate"]).toContain(`error="insufficient_scope", scope="mcp admin", resource_metadata="${server().metadataUrl}"`)
    expect(errorOf(response).code).toBe(Scopes.insufficientScopeCode)
  })

  it("ends a listen stream when its token expires", async () => {
    const token = await as.mint({ aud: server().url, scope: "mcp" }, { expiresIn: 2 })
    const response = await send(server().url, request("subscriptions/listen", { notifications: { toolsListChanged: true } }), { headers: bearer(token) })
    expect(response.messages.map((message) => message["method"] ?? (message["error"] as { code: number }).code)).toEqual([
      "notifications/subscriptions/acknowledged",
      ResourceServer.unauthorizedCode
    ])
  })
})

describe("an unreachable authorization server", () => {
  it("makes requests 503 (the token may be fine), on both adapters' shared verifier", async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/mcp`
    const runtime = ManagedRuntime.make(ResourceServer.layerServe({ port }).pipe(Layer.provide(oauth(url, "http://127.0.0.1:1")), Layer.provide(App)))
    try {
      await portOf(runtime)
      const token = await as.mint({ aud: url, scope: "mcp" })
      const response = await post(url, request("tools/list"), bearer(token))
      expect([response.status, response.headers["retry-after"], errorOf(response).code]).toEqual([503, "5", -32603])
    } finally {
      await runtime.dispose()
    }
  })
})

describe("a provider-specific audience", () => {
  it("is accepted instead of the resource URI when configured, and the URI no longer is", async () => {
    const resource = "https://mcp.example.com/mcp"
    const program = Effect.gen(function*() {
      const server = yield* ResourceServer.ResourceServer
      const statusOf = (token: string) =>
        Effect.map(Effect.exit(server.authenticate({ authorization: `Bearer ${token}` })), (exit) =>
          Exit.isSuccess(exit) ? exit.value.principal.id : Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error.status : "defect")
      const appId = yield* Effect.promise(() => as.mint({ sub: "entra-user", aud: "00000000-0000-0000-0000-00000000a11d" }))
      const uri = yield* Effect.promise(() => as.mint({ sub: "entra-user", aud: resource }))
      return [yield* statusOf(appId), yield* statusOf(uri), server.document.resource]
    })
    const layer = ResourceServer.layer({ resource, audience: "00000000-0000-0000-0000-00000000a11d" }).pipe(
      Layer.provide(JwtVerifier.layer({ issuer: as.issuer })),
      Layer.provide(FetchHttpClient.layer)
    )
    expect(await Effect.runPromise(program.pipe(Effect.provide(layer)))).toEqual([`user:${as.issuer}#entra-user`, 401, resource])
  })
})
