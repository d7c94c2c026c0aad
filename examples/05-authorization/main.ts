/**
 * Runs the authorization example on http://127.0.0.1:3005/mcp and prints a token per role.
 *
 *   npx node examples/05-authorization/main.ts
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { SignJWT } from "jose"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { app } from "./app.ts"

const secret = randomBytes(32)

for (const [sub, role] of [["ada", "admin"], ["ann", "analyst"], ["gus", "guest"]] as const) {
  const token = await new SignJWT({ role }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("1h").sign(secret)
  process.stderr.write(`${role}: Bearer ${token}\n`)
}

HttpRouter.serve(app(secret, (event) => Effect.logInfo("refused", event))).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: 3005, host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
