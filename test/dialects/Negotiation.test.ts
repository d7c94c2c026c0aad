/**
 * One server, both eras, as the official 2.4.0 client (`@modelcontextprotocol/client`) sees it:
 * in its negotiating mode (`auto`: probe with `server/discover`, fall back to `initialize` only
 * on a legacy answer) it picks 2026-07-28 from the everything server over HTTP and over stdio;
 * in its default mode (`legacy`: the plain 2025 handshake) it initializes at 2025-11-25 and is
 * served by the initialize-era dialect.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"

const serverArgs = ["examples/everything/main.mjs", "--stdio"]

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url: URL
beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, sessions: true }).pipe(Layer.provide(ServerLayer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  url = new URL(`http://127.0.0.1:${server.address.port}/mcp`)
})
afterAll(async () => {
  await runtime?.dispose()
})

const text = (result: { content?: unknown }) => (result.content as Array<{ type: string; text?: string }>)[0]?.text

describe("the official 2.4.0 client against a server with both dialects", () => {
  it("auto over HTTP: the server/discover probe selects 2026-07-28", async () => {
    const client = new Client({ name: "auto-host", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
    await client.connect(new StreamableHTTPClientTransport(url))
    expect(client.getProtocolEra()).toBe("modern")
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    expect(text(await client.callTool({ name: "echo", arguments: { text: "modern" } }))).toBe("{\"text\":\"modern\"}")
    await client.close()
  })

  it("auto over stdio: the probe selects 2026-07-28", async () => {
    const client = new Client({ name: "auto-host", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: "pipe" }))
    expect(client.getProtocolEra()).toBe("modern")
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    expect(text(await client.callTool({ name: "echo", arguments: { text: "stdio" } }))).toBe("{\"text\":\"stdio\"}")
    await client.close()
  })

  it("the default (legacy) mode initializes at 2025-11-25 and is served by that era's dialect", async () => {
    const client = new Client({ name: "legacy-host", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(url)
    await client.connect(transport)
    expect(client.getProtocolEra()).toBe("legacy")
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25")
    expect(transport.sessionId).toBeDefined()
    expect(text(await client.callTool({ name: "echo", arguments: { text: "legacy" } }))).toBe("{\"text\":\"legacy\"}")
    await client.close()
  })
})
