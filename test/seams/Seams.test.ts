/**
 * The route table's seams, proved from test code: a test-only dialect (`2099-01-01`, one method
 * more) and a test-only extension (`com.example/notes`: a method, a reserved method, a listen
 * filter key and an `Mcp-Name` rule), added by the application with nothing changed in the core,
 * each exercised through a real stdio child process and a real HTTP listener.
 */
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { validateServerMessage } from "../support/OfficialSchema.ts"
import { notesExtension, seamServer } from "../support/SeamServer.ts"
import { eventsOf } from "../support/Sse.ts"
import { spawnServer, type StdioProcess } from "../support/StdioProcess.ts"

type Frame = Record<string, unknown> & {
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
  readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> }
}

const subscriptionId = "io.modelcontextprotocol/subscriptionId"
const notes = { extensions: { [notesExtension]: {} } }

const metaOf = (version: string, capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": capabilities
})

const rpc = (id: number | string, method: string, params: Record<string, unknown>, version = "2026-07-28", capabilities = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: metaOf(version, capabilities) }
})

/** What both transports must answer, whichever carries the requests. */
interface Peer {
  readonly request: (message: ReturnType<typeof rpc>, headers?: Record<string, string>) => Promise<Frame>
  /** Opens a listen stream; `next` reads its frames in order. */
  readonly listen: (id: string, notifications: Record<string, unknown>, capabilities: Record<string, unknown>) => Promise<{
    readonly first: Frame
    readonly next: () => Promise<Frame>
  }>
}

const behaves = (name: string, peer: () => Peer) =>
  describe(name, () => {
    it("discover advertises both dialects and the extension's settings", async () => {
      const discovered = await peer().request(rpc(1, "server/discover", {}))
      expect(discovered.result?.["supportedVersions"]).toEqual(["2026-07-28", "2099-01-01"])
      expect(discovered.result?.["capabilities"]).toMatchObject({ extensions: { [notesExtension]: { maxLength: 280 } } })
    })

    it("the test dialect's method is served under its version only", async () => {
      const served = await peer().request(rpc(2, "example/whoami", {}, "2099-01-01"))
      expect(served.result).toMatchObject({ resultType: "complete", version: "2099-01-01" })
      const unknown = await peer().request(rpc(3, "example/whoami", {}))
      expect(unknown.error?.code).toBe(-32601)
      // the 2026-07-28 methods are the 2099 dialect's too
      const echoed = await peer().request(rpc(4, "tools/call", { name: "echo", arguments: { text: "hi" } }, "2099-01-01"))
      expect(echoed.result).toMatchObject({ content: [{ type: "text", text: "hi" }] })
    })

    it("the extension's method needs the extension on this request: -32021 before its params are read", async () => {
      const refused = await peer().request(rpc(5, "notes/add", { title: 7 }), { "mcp-name": "7" })
      expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [notesExtension]: {} } } } })
      const invalid = await peer().request(rpc(6, "notes/add", { title: "t", text: 7 }, "2026-07-28", notes), { "mcp-name": "t" })
      expect(invalid.error?.code).toBe(-32602)
      expect(invalid.error?.message).toContain("text")
      const stored = await peer().request(rpc(7, "notes/add", { title: "t", text: "hello" }, "2026-07-28", notes), { "mcp-name": "t" })
      expect(stored.result).toMatchObject({ resultType: "complete", stored: "t" })
    })

    it("a method the extension reserves is unknown, negotiated or not", async () => {
      const refused = await peer().request(rpc(8, "notes/list", {}, "2026-07-28", notes))
      expect(refused.error?.code).toBe(-32601)
    })

    it("the extension's listen key needs the extension; its topic reaches the stream, acknowledged", async () => {
      const refused = await peer().listen("plain", { notes: true }, {})
      expect(refused.first.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [notesExtension]: {} } } } })
      const stream = await peer().listen("notes", { notes: true, toolsListChanged: true }, notes)
      expect(stream.first).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { notes: true }, _meta: { [subscriptionId]: "notes" } }
      })
      const stored = await peer().request(rpc(9, "notes/add", { title: "n1", text: "for the stream" }, "2026-07-28", notes), { "mcp-name": "n1" })
      expect(stored.result).toMatchObject({ stored: "n1" })
      const delivered = await stream.next()
      expect(delivered).toMatchObject({
        method: "notifications/notes",
        params: { title: "n1", text: "for the stream", _meta: { [subscriptionId]: "notes" } }
      })
    })
  })

// ---- stdio: a real child process -----------------------------------------------------------

let stdio: StdioProcess
/** Frames read and not taken yet; `read` counts the stdout lines already parsed. */
const stdioFrames: Array<Frame> = []
let read = 0

const stdioPeer: Peer = {
  request: async (message) => {
    stdio.write(JSON.stringify(message) + "\n")
    return await stdioTake((frame) => frame["id"] === message.id && !("method" in frame))
  },
  listen: async (id, notifications, capabilities) => {
    stdio.write(JSON.stringify(rpc(id, "subscriptions/listen", { notifications }, "2026-07-28", capabilities)) + "\n")
    const mine = (frame: Frame) => frame["id"] === id || frame.params?._meta?.[subscriptionId] === id
    return { first: await stdioTake(mine), next: () => stdioTake(mine) }
  }
}

/** Takes the first frame read (or yet to be read) that `accept`s. */
const stdioTake = async (accept: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const lines = stdio.lines()
    for (; read < lines.length; read++) stdioFrames.push(JSON.parse(lines[read]!) as Frame)
    const index = stdioFrames.findIndex(accept)
    if (index >= 0) return stdioFrames.splice(index, 1)[0]!
    if (Date.now() > deadline) throw new Error(`no matching frame; stderr: ${stdio.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

beforeAll(() => {
  stdio = spawnServer(["test/support/SeamServerMain.ts"])
})

afterAll(async () => {
  stdio.child.stdin.end()
  expect((await stdio.exited).code).toBe(0)
})

behaves("over stdio", () => stdioPeer)

// ---- HTTP: a real listener on port 0 --------------------------------------------------------

let http: { readonly url: string; readonly dispose: () => Promise<void> }

const headersOf = (message: ReturnType<typeof rpc>, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": String(message.params._meta["io.modelcontextprotocol/protocolVersion"]),
  "mcp-method": message.method,
  ...(message.method === "tools/call" ? { "mcp-name": String((message.params as Record<string, unknown>)["name"]) } : {}),
  ...extra
})

const post = (message: ReturnType<typeof rpc>, extra?: Record<string, string>) =>
  fetch(http.url, { method: "POST", headers: headersOf(message, extra), body: JSON.stringify(message) })

const checked = (frame: Frame, requestMethod: string): Frame => {
  expect(validateServerMessage(frame, "method" in frame ? {} : { requestMethod })).toEqual([])
  return frame
}

const sse = (response: Response, requestMethod: string) => {
  const next = eventsOf(response)
  return async (): Promise<Frame> => {
    const frame = await next() as Frame
    // the extension's notification is not in the official schema; the revision's frames are checked
    return frame["method"] === "notifications/notes" ? frame : checked(frame, requestMethod)
  }
}

const httpPeer: Peer = {
  request: async (message, headers) => {
    const response = await post(message, headers)
    const frame = await response.json() as Frame
    // extension methods are not in the official schema; the core revision's are checked
    return message.method.startsWith("notes/") || message.method.startsWith("example/") ? frame : checked(frame, message.method)
  },
  listen: async (id, notifications, capabilities) => {
    const response = await post(rpc(id, "subscriptions/listen", { notifications }, "2026-07-28", capabilities))
    if (response.headers.get("content-type")?.startsWith("application/json")) {
      const frame = await response.json() as Frame
      return { first: frame, next: () => Promise.reject(new Error("not a stream")) }
    }
    const next = sse(response, "subscriptions/listen")
    return { first: await next(), next }
  }
}

beforeAll(async () => {
  const runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(seamServer().layer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  http = { url: `http://127.0.0.1:${server.address.port}/mcp`, dispose: () => runtime.dispose() }
})

afterAll(() => http.dispose())

behaves("over HTTP", () => httpPeer)

describe("over HTTP, the extension's header rule", () => {
  it("Mcp-Name must be the note's title (params.title)", async () => {
    const message = rpc(10, "notes/add", { title: "t", text: "x" }, "2026-07-28", notes)
    const missing = await post(message)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ error: { code: -32020, data: { header: "Mcp-Name", body: "params.title" } } })
    const wrong = await post(message, { "mcp-name": "other" })
    expect(wrong.status).toBe(400)
    expect((await post(message, { "mcp-name": "t" })).status).toBe(200)
  })

  it("the extension's -32021 is HTTP 400, the reserved method 404", async () => {
    expect((await post(rpc(11, "notes/add", { title: "t", text: "x" }), { "mcp-name": "t" })).status).toBe(400)
    expect((await post(rpc(12, "notes/list", {}, "2026-07-28", notes))).status).toBe(404)
  })
})
