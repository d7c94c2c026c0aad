/**
 * Issue 36, "Failures become waits": each failure mode as a real faulty peer (a closed port, a
 * wrong path on our own server, the official SDK v1 server as its README sets it up, stdio servers
 * that print junk, a 2025-only server with a pinned version, a listen for changes the server
 * declares none of, a silent server): the error's kind, that it names the URL, the method or the
 * command, and that it arrives within 2 s of the fault with every timeout set far above that (no
 * probe or request timeout waited out).
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, type Scope } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { McpClient, type McpClientModule, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { sourceCondition } from "../support/Sources.ts"
import * as FreePort from "../support/FreePort.ts"

const hostile = new URL("./support/HostileStdioServer.mjs", import.meta.url).pathname
const everything = new URL("../../examples/everything/main.mjs", import.meta.url).pathname
const officialV1 = new URL("./support/OfficialV1ReadmeServerMain.ts", import.meta.url).pathname

/** Timeouts far above the 2 s a failure may take: a test that passes waited none of them out. */
const patient = { requestTimeout: "30 seconds", probeTimeout: "20 seconds", connectTimeout: "60 seconds" } as const

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.flatMap((reason) => reason._tag === "Fail" ? [reason.error] : [])[0] : undefined

/** Connects (and runs `use`), timing it: the exit and the milliseconds. */
const attempt = <A, E>(layer: Layer.Layer<McpClient, E>, use: Effect.Effect<A, unknown, McpClient | Scope.Scope> = Effect.void as never) =>
  Effect.gen(function*() {
    const started = Date.now()
    const exit = yield* Effect.exit(Effect.scoped(Effect.provide(use, layer)))
    return { exit, error: failureOf(exit) as { _tag: string; reason?: string; status?: number; message: string } | undefined, millis: Date.now() - started }
  })

const overHttp = (url: string, options: McpClientModule.Options = patient) =>
  McpClient.layer(options).pipe(Layer.provide(StreamableHttpClientTransport.layer({ url })), Layer.provide(FetchHttpClient.layer))

const overHostile = (scenario: string, options: McpClientModule.Options = patient, count = 100) =>
  McpClient.layer(options).pipe(Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [hostile, scenario, String(count)] })))

/** A child process printing its URL on its first line, for the scope. */
const childServer = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, [sourceCondition, ...args], { stdio: ["ignore", "pipe", "inherit"] })),
      (started) => Effect.sync(() => void started.kill())
    )
    return yield* Effect.callback<string>((resume) => {
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8")
        const line = out.split("\n")
        if (line.length > 1 && line[0] !== undefined) resume(Effect.succeed(line[0].trim()))
      })
    })
  })

describe("failures are immediate, typed errors that say what happened (issue 36)", () => {
  it.live("a wrong port: TransportError Http naming the URL and ECONNREFUSED", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(FreePort.freePort)
      const url = `http://127.0.0.1:${port}/mcp`
      const { error, millis } = yield* attempt(overHttp(url))
      expect(error?._tag).toBe("TransportError")
      expect(error?.reason).toBe("Http")
      expect(error?.message).toBe(`POST ${url} (server/discover) failed: ECONNREFUSED (is the server running, on that port?)`)
      expect(millis).toBeLessThan(2000)
    }), 30_000)

  it.live("a wrong path on our own server: HTTP 404 with the URL, the method and the body's first line", () =>
    Effect.gen(function*() {
      const address = (yield* HttpServer.HttpServer).address
      const url = address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${address.port}/nope`
      const { error, millis } = yield* attempt(overHttp(url))
      expect(error?._tag).toBe("TransportError")
      expect(error?.status).toBe(404)
      expect(error?.message).toContain(`POST ${url} (initialize) answered HTTP 404`)
      expect(error?.message).toContain("is the URL the server's MCP endpoint?")
      expect(millis).toBeLessThan(2000)
    }).pipe(Effect.provide(NodeServe.layer({ port: 0 }).pipe(Layer.provide(serverLayerFor(["2026-07-28", "2025-11-25"]))))), 30_000)

  it.live("the official SDK v1 server's 400 with a null-id error to server/discover: the client falls back at once", () =>
    Effect.gen(function*() {
      const url = yield* childServer([officialV1])
      const { exit, millis } = yield* attempt(overHttp(url), Effect.gen(function*() {
        const client = yield* McpClient
        expect(client.server.era).toBe("legacy")
        const echoed = yield* client.callTool("echo", { text: "hi" })
        expect(echoed.content).toEqual([{ type: "text", text: "hi" }])
      }))
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(millis).toBeLessThan(2000)
    }).pipe(Effect.scoped), 30_000)

  it.live("a stdio server that logs to stdout: ended past maxInvalidFrames, naming the command and the lines", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* attempt(overHostile("junk-first"))
      expect(error?._tag).toBe("TransportError")
      expect(error?.reason).toBe("Protocol")
      expect(error?.message).toContain("HostileStdioServer.mjs junk-first")
      expect(error?.message).toContain("the first: Starting up, step 0...")
      expect(error?.message).toContain("logs go to stderr")
      expect(millis).toBeLessThan(2000)
    }), 30_000)

  it.live("a stdio server whose banner is glued to its first answer: the probe fails at once with the line, the client falls back", () =>
    Effect.gen(function*() {
      const { exit, millis } = yield* attempt(overHostile("junk-glued"), Effect.gen(function*() {
        const client = yield* McpClient
        expect(client.server.era).toBe("legacy")
        yield* client.ping
      }))
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(millis).toBeLessThan(2000)
    }), 30_000)

  it.live("a pinned 2026-07-28 against a 2025-only server says so and names \"auto\"", () =>
    Effect.gen(function*() {
      const layer = McpClient.layer({ ...patient, protocolVersion: "2026-07-28" }).pipe(Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: [hostile, "legacy-only"]
      })))
      const { error, millis } = yield* attempt(layer)
      expect(error?._tag).toBe("RpcError")
      expect(error?.message).toContain("The server does not speak 2026-07-28: server/discover failed: Method not found")
      expect(error?.message).toContain("pass protocolVersion: \"auto\"")
      expect(millis).toBeLessThan(2000)
    }), 30_000)

  it.live("the same against our everything server speaking 2025-11-25 only", () =>
    Effect.gen(function*() {
      const layer = McpClient.layer({ ...patient, protocolVersion: "2026-07-28" }).pipe(Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: [sourceCondition, everything, "--stdio", "--dialects", "2025-11-25"]
      })))
      const { error, millis } = yield* attempt(layer)
      expect(error?.message).toContain("The server does not speak 2026-07-28")
      expect(error?.message).toContain("pass protocolVersion: \"auto\"")
      // the time includes starting the server (its modules load in ~1 s here)
      expect(millis).toBeLessThan(5000)
    }), 30_000)

  it.live.each([
    ["legacy-no-list-changed", "declares"],
    ["no-list-changed", "acknowledged"]
  ] as const)("a listen the server (%s) will never deliver to fails at once with Unsupported", ([scenario, verb]) =>
    Effect.gen(function*() {
      const { error, millis } = yield* attempt(overHostile(scenario), Effect.gen(function*() {
        const client = yield* McpClient
        yield* client.listen({ toolsListChanged: true })
      }))
      expect(error?._tag).toBe("Unsupported")
      expect(error?.message).toContain(`The server ${verb} none of the changes asked for (toolsListChanged)`)
      expect(millis).toBeLessThan(2000)
    }), 30_000)

  it.live("a request the server never answers: the wait is named (requestTimeout) with the server", () =>
    Effect.gen(function*() {
      const { error } = yield* attempt(overHostile("silent", { requestTimeout: "2 seconds" }), Effect.gen(function*() {
        const client = yield* McpClient
        yield* client.callTool("x")
      }))
      expect(error?._tag).toBe("TransportError")
      expect(error?.message).toMatch(/^The server did not answer tools\/call within 2000 ms \(requestTimeout\) \(.*HostileStdioServer\.mjs silent/)
      // the era the request was sent in
      expect(error?.message).toContain("HostileStdioServer.mjs silent 100; 2026-07-28)")
    }), 30_000)

  it.live("connecting is bounded as a whole (connectTimeout), and the probe's own wait is named (probeTimeout)", () =>
    Effect.gen(function*() {
      const whole = yield* attempt(overHostile("no-discover-answer", { connectTimeout: "500 millis" }))
      expect(whole.error?.message).toMatch(/^Connecting to the server took longer than 500 ms \(connectTimeout\)/)
      expect(whole.millis).toBeLessThan(2500)
      const probe = yield* attempt(overHostile("no-discover-answer", { protocolVersion: "2026-07-28", probeTimeout: "300 millis" }))
      expect(probe.error?.message).toContain("The server did not answer server/discover within 300 ms (probeTimeout)")
      expect(probe.error?.message).toContain("pass protocolVersion: \"auto\"")
    }), 30_000)

  it.live("a JSON-RPC error with a null id ends the one request waiting", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const { error } = yield* attempt(overHostile("null-id-error"), Effect.gen(function*() {
        const client = yield* McpClient
        yield* client.callTool("x")
      }))
      expect(error?._tag).toBe("RpcError")
      expect(error?.message).toBe("Invalid request: this server cannot read that")
      expect(String(error)).toBe("RpcError: tools/call answered -32600: Invalid request: this server cannot read that")
      expect(Date.now() - started).toBeLessThan(2000)
    }), 30_000)

  it.live("a server that exits: the command and its stderr tail", () =>
    Effect.gen(function*() {
      const layer = McpClient.layer(patient).pipe(Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: ["-e", "process.stderr.write('missing API_KEY\\n'); process.exit(2)"]
      })))
      const { error, millis } = yield* attempt(layer)
      expect(error?._tag).toBe("TransportError")
      expect(error?.message).toContain(`The server process (${process.execPath} -e`)
      expect(error?.message).toContain("exited with code 2; its stderr ended with:\nmissing API_KEY")
      expect(millis).toBeLessThan(2000)
    }), 30_000)
})
