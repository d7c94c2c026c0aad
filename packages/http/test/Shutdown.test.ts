/**
 * The one-call server's shutdown: in-flight requests, MCP or an application's, get
 * `shutdownTimeout` to finish; what still runs after it is interrupted, and its finalizers have run
 * before the services it runs on are released.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { describe, expect, it } from "vitest"
import * as NodeServe from "@snodo/http/NodeServe"
import { eventually, post, request, send } from "./support/Raw.ts"
import { Server, stats } from "./support/TestServer.ts"

const portOf = async <E>(runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, E>): Promise<number> => {
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return address.port
}

describe("shutdown past shutdownTimeout", () => {
  it("interrupts the running handler and runs its finalizers before the services it runs on are released", async () => {
    const before = { ...stats }
    // A service of the application (a pool, a client), released when the Layer's scope closes: after
    // the server's own finalizer, since the server is built on it.
    const released: Array<{ interrupted: number; finalized: number }> = []
    const service = Layer.effectDiscard(Effect.addFinalizer(() =>
      Effect.sync(() =>
        released.push({ interrupted: stats.interrupted - before.interrupted, finalized: stats.finalized - before.finalized })
      )
    ))
    const runtime = ManagedRuntime.make(
      NodeServe.layer({ port: 0, shutdownTimeout: "150 millis" }).pipe(Layer.provide(Layer.merge(Server.layer, service)))
    )
    const url = `http://127.0.0.1:${await portOf(runtime)}/mcp`
    const slow = post(url, request("tools/call", { name: "slow", arguments: { ms: 10_000 } })).then(
      (response) => response.status,
      (error: Error) => error.message
    )
    await eventually(() => stats.started > before.started)
    const startedAt = Date.now()
    await runtime.dispose()
    const took = Date.now() - startedAt
    expect(took).toBeGreaterThanOrEqual(140)
    expect(took).toBeLessThan(3000)
    expect(released).toEqual([{ interrupted: 1, finalized: 1 }])
    expect(stats.completed).toBe(before.completed)
    // The connection was destroyed: the client sees an error, not an answer.
    expect(await slow).toMatch(/socket hang up|ECONNRESET/)
    await expect(post(url, request("tools/list"))).rejects.toThrow(/ECONNREFUSED/)
  })
})

describe("shutdown with an application served", () => {
  it("an application request in flight is drained like an MCP request, within shutdownTimeout", async () => {
    const routes = HttpRouter.add("GET", "/slow", Effect.as(Effect.sleep(300), HttpServerResponse.text("done")))
    const runtime = ManagedRuntime.make(
      HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeServe.layer({ port: 0, shutdownTimeout: "5 seconds" })),
        Layer.provide(Server.layer)
      )
    )
    const base = `http://127.0.0.1:${await portOf(runtime)}`
    const before = stats.started
    const app = send(`${base}/slow`, undefined, { method: "GET" }).then((r) => [r.status, r.text], (e: Error) => e.message)
    const mcp = post(`${base}/mcp`, request("tools/call", { name: "slow", arguments: { ms: 300 } })).then((r) => r.status)
    await eventually(() => stats.started > before)
    await runtime.dispose()
    expect(await app).toEqual([200, "done"])
    expect(await mcp).toBe(200)
  })

  it("past shutdownTimeout an application request is interrupted, its finalizers run before the scope closes", async () => {
    const events: Array<string> = []
    const routes = HttpRouter.add(
      "GET",
      "/stuck",
      Effect.sync(() => events.push("started")).pipe(
        Effect.andThen(Effect.sleep(10_000)),
        Effect.as(HttpServerResponse.text("late")),
        Effect.onInterrupt(() => Effect.sync(() => events.push("interrupted")))
      )
    )
    const runtime = ManagedRuntime.make(
      HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeServe.layer({ port: 0, shutdownTimeout: "150 millis" })),
        Layer.provide(Server.layer)
      )
    )
    const base = `http://127.0.0.1:${await portOf(runtime)}`
    const stuck = send(`${base}/stuck`, undefined, { method: "GET" }).then((r) => r.status, (e: Error) => e.message)
    await eventually(() => events.includes("started"))
    const startedAt = Date.now()
    await runtime.dispose()
    expect(Date.now() - startedAt).toBeLessThan(3000)
    expect(events).toEqual(["started", "interrupted"])
    expect(await stuck).not.toBe(200)
  })
})
