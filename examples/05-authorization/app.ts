/**
 * One MCP server, one authorization policy, three kinds of principal.
 *
 * The application verifies HS256 bearer tokens with `jose` in its own HTTP middleware and provides
 * the verified `Principal`; the policy decides what each role sees and may call:
 *
 * - `admin` sees and calls everything;
 * - `analyst` sees the reporting tools, not `delete_records` (calling it anyway is refused with
 *   the application's own -32001 error, and audited);
 * - `guest` sees only `public_status`; everything else is concealed, i.e. answered exactly as if it
 *   did not exist.
 */
import { Authorization, McpServer, Principal, Tool } from "@snodo/core"
import * as McpHttp from "@snodo/http/McpHttp"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { jwtVerify } from "jose"

const NoInput = Schema.Struct({})

const tools = [
  Tool.make("public_status", { description: "Service status", input: NoInput }, () => Effect.succeed("all systems nominal")),
  Tool.make("report_daily", { description: "Daily report", input: Schema.Struct({ day: Schema.String }) }, ({ day }) => Effect.succeed(`report for ${day}`)),
  Tool.make("report_weekly", { description: "Weekly report", input: NoInput }, () => Effect.succeed("weekly report")),
  Tool.make("delete_records", { description: "Deletes records", input: Schema.Struct({ before: Schema.String }) }, ({ before }) => Effect.succeed(`deleted before ${before}`))
]

/** The server definition (page size 2 so that cursors matter). */
export const Server = McpServer.make({ name: "authz-example", version: "1.0.0", pageSize: 2 }).add(...tools)

/** Who may do what. Pure and cheap: it looks only at the principal's role and the component. */
export const policy = (audit: (event: Authorization.AuditEvent) => Effect.Effect<void>): Authorization.Policy => ({
  authorize: (_phase, component, { principal }) => {
    const role = principal.claims["role"]
    if (role === "admin") return Authorization.allow
    if (role === "analyst") {
      return component.name === "delete_records"
        ? Authorization.refuse(-32001, "Forbidden: analysts cannot delete records", { data: { required: "admin" } })
        : Authorization.allow
    }
    return component.name === "public_status" ? Authorization.allow : Authorization.refuse(-32002, "Forbidden", { conceal: true })
  },
  audit
})

/** The application's authentication: a valid HS256 JWT in, verified principal out, else 401. */
export const authentication = (secret: Uint8Array) =>
  HttpRouter.middleware<{ provides: Principal.Principal }>()((httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers["authorization"]
      const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined
      const verified = token === undefined
        ? undefined
        : yield* Effect.tryPromise(() => jwtVerify(token, secret, { algorithms: ["HS256"] })).pipe(
          Effect.map(({ payload }) => payload),
          Effect.orElseSucceed(() => undefined)
        )
      if (verified === undefined || typeof verified.sub !== "string") {
        return HttpServerResponse.text("Unauthorized", { status: 401, headers: { "www-authenticate": "Bearer" } })
      }
      return yield* Effect.provideService(httpEffect, Principal.Principal, { id: verified.sub, claims: { role: verified["role"] } })
    })
  )

/** The application: MCP at /mcp behind its authentication, with the policy. */
export const app = (secret: Uint8Array, audit: (event: Authorization.AuditEvent) => Effect.Effect<void>) =>
  McpHttp.layerRoute({ path: "/mcp" }).pipe(
    Layer.provide(authentication(secret).layer),
    Layer.provide(Server.layer),
    Layer.provide(Authorization.layer(policy(audit)))
  )
