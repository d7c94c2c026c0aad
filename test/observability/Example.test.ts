/**
 * examples/09-observability on a real listener: `/metrics` answers Prometheus text with the
 * server's metrics, and the audit log records the invocation the policy refused.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { App } from "../../examples/09-observability/server.ts"

const logged: Array<string> = []
const Capture = Logger.layer([Logger.make((options) => void logged.push(String(options.message)))])

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let base: string
beforeAll(async () => {
  runtime = ManagedRuntime.make(
    HttpRouter.serve(App).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(Capture)
    )
  )
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  base = `http://127.0.0.1:${server.address.port}`
})
afterAll(() => runtime.dispose())

const call = async (id: number, name: string, args: Record<string, unknown>) => {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
      }
    })
  })
  return await response.json() as { readonly result?: { readonly content?: unknown }; readonly error?: { readonly code: number } }
}

describe("examples/09-observability", () => {
  it("serves the tool, counts it in /metrics, and audits the refused invocation", async () => {
    expect((await call(1, "forecast", { city: "Lyon" })).result?.content).toEqual([{ type: "text", text: "Sunny in Lyon" }])
    expect((await call(2, "restricted", {})).error?.code).toBe(-32001)
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toMatch(/mcp_server_requests\{mcp_method_name="tools\/call",outcome="result"\} [1-9]/)
    expect(metrics).toMatch(/mcp_server_refusals\{reason="forbidden"\} [1-9]/)
    const deadline = Date.now() + 5_000
    while (!logged.some((line) => line.includes("restricted")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(logged).toContain("refused tools/call restricted for anonymous: forbidden (-32001)")
  })
})
