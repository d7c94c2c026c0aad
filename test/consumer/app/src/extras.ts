/**
 * The other packages as an application composes them, type-checked under the app's settings and
 * never started by the test: tasks in memory, the server as an OAuth resource server, skills
 * from a folder or from memory, and an MCP App (a view, a tool linked to it that answers plain
 * content to hosts without views), and an agent calling a server with `@snodo/client`.
 */
import { AppResource, Apps, AppTool } from "@snodo/apps"
import { AuthorizationPrompt, InputHandlers, McpClient, OAuthClient, StreamableHttpClientTransport, TokenStore } from "@snodo/client"
import { Authorization, Content, Tool, ToolResult } from "@snodo/core"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import * as Skills from "@snodo/skills"
import * as NodeSkillSource from "@snodo/skills/NodeSkillSource"
import * as Tasks from "@snodo/tasks"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { Server } from "./server.js"

export const WithTasks = Server.extend(Tasks.extension({ tools: {} })).layer.pipe(
  Layer.provide(Tasks.TaskStore.layerMemory())
)

const OAuth = ResourceServer.layer({ resource: "https://mcp.example.com/mcp", scopesSupported: ["mcp"] }).pipe(
  Layer.provide(JwtVerifier.layer({ issuer: "https://auth.example.com" })),
  Layer.provide(FetchHttpClient.layer)
)

export const WithOAuth = ResourceServer.layerServe({ port: 3000, allowedHosts: ["mcp.example.com"] }).pipe(
  Layer.provide(OAuth),
  Layer.provide(Server.layer.pipe(Layer.provide(Authorization.layer(Scopes.requireScopes({ default: ["mcp"] })))))
)

export const WithSkills = Server.pipe(Skills.serve({ directoryRead: true, cache: { ttlMs: 60_000, cacheScope: "private" } })).layer.pipe(
  Layer.provide(Skills.SkillCatalog.layer({ prefix: "app" })),
  Layer.provide(NodeSkillSource.layer("./skills"))
)

export const WithSkillsInMemory = Server.pipe(Skills.serve()).layer.pipe(
  Layer.provide(Skills.SkillCatalog.layer()),
  Layer.provide(Skills.SkillSource.layerMemory({
    "greeting/SKILL.md": "---\nname: greeting\ndescription: Greets people\n---\n# Greeting\n"
  }))
)

const view = AppResource.make({ uri: "ui://consumer/view.html", name: "view", csp: { connectDomains: ["https://api.example.com"] } },
  "<!doctype html><html><body><output id=sum></output></body></html>")

const sum = AppTool.make(
  Tool.make("sum", { input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }) }, ({ a, b }) =>
    Effect.map(Apps.supported, (views) =>
      views ? ToolResult.content([Content.text(`${a + b}`)], { structuredContent: { sum: a + b } }) : `${a + b}`)),
  { view, visibility: ["model", "app"] }
)

export const WithApps = Server.add(view, sum).extend(Apps.extension({ appOnlyTools: "views" })).layer

/** An HttpClient that authorizes itself (OAuth 2.1 client credentials), from the packed @snodo/client. */
export const AuthorizedHttpClient = OAuthClient.layer({
  clientName: "consumer-app",
  flow: { grant: "client_credentials" },
  preRegistered: [{ clientId: "consumer-app", clientSecret: "s3cret" }]
}).pipe(Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory, AuthorizationPrompt.layerHeadless]))

/** An agent's side: `@snodo/client` over HTTP, authorized by the OAuth client, with a typed call and an elicitation handler. */
const Add = McpClient.tool("add", {
  input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  output: Schema.Struct({ sum: Schema.Finite })
})

export const addRemotely = Effect.gen(function*() {
  const client = yield* McpClient
  const added = yield* client.call(Add, { a: 1, b: 2 })
  return added.sum
}).pipe(Effect.provide(McpClient.layer().pipe(
  Layer.provide(StreamableHttpClientTransport.layer({ url: "http://127.0.0.1:3000/mcp" })),
  Layer.provide(AuthorizedHttpClient),
  Layer.provide(InputHandlers.layer({ elicit: () => Effect.succeed({ action: "decline" }) }))
)))
