/**
 * The other packages as an application composes them, type-checked under the app's settings and
 * never started by the test: tasks in memory, and the server as an OAuth resource server.
 */
import { Authorization } from "@snodo/core"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import * as Tasks from "@snodo/tasks"
import { Layer } from "effect"
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
