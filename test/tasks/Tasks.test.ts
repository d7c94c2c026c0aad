/**
 * The Tasks extension through real transports: a stdio child process and an HTTP listener. Every
 * refusal in its order (removed methods, the undeclared extension, unknown and expired tasks,
 * another principal's, the HTTP routing header), cancelling a running task (its finalizer runs),
 * a task that asks two inputs at once answered one by one, notifications on a listen stream, and
 * time to live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { validateServerMessage } from "../support/OfficialSchema.ts"
import { eventsOf } from "../support/Sse.ts"
import { spawnServer, type StdioProcess } from "../support/StdioProcess.ts"
import { serveTasksHttp } from "../support/TaskServer.ts"

type Frame = Record<string, unknown> & {
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
  readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> }
}

const tasksExtension = "io.modelcontextprotocol/tasks"
const subscriptionId = "io.modelcontextprotocol/subscriptionId"
const negotiated = { elicitation: {}, extensions: { [tasksExtension]: {} } }

interface Message {
  readonly jsonrpc: "2.0"
  readonly id: number | string
  readonly method: string
  readonly params: Record<string, unknown>
}

let ids = 0
const rpc = (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = negotiated): Message => ({
  jsonrpc: "2.0",
  id: ++ids,
  method,
  params: {
    ...params,
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities }
  }
})

/** The 2026-07-28 messages are checked against the official schema (task shapes are the extension's). */
const checked = (frame: Frame, method: string): Frame => {
  if (!method.startsWith("tasks/") && frame.result?.["resultType"] !== "task" && frame["method"] !== "notifications/tasks") {
    expect(validateServerMessage(frame, "method" in frame ? {} : { requestMethod: method })).toEqual([])
  }
  return frame
}

interface Peer {
  readonly request: (message: Message, headers?: Record<string, string>) => Promise<Frame>
  /** Opens a listen stream; `next` reads its frames in order. */
  readonly listen: (notifications: Record<string, unknown>) => Promise<{ readonly first: Frame; readonly next: () => Promise<Frame> }>
}

const eventually = async <A>(probe: () => Promise<A>, done: (value: A) => boolean, timeoutMs = 10_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(value).slice(0, 300)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** `stderr` is the server process's, when it is one (the in-process HTTP server counts instead). */
const behaves = (name: string, peer: () => Peer, stderr: (() => string) | undefined) =>
  describe(name, () => {
    const call = (tool: string, args: Record<string, unknown>, capabilities?: Record<string, unknown>) =>
      peer().request(rpc("tools/call", { name: tool, arguments: args }, capabilities))
    const get = (taskId: string) => peer().request(rpc("tasks/get", { taskId }), { "mcp-name": taskId })
    const statusOf = async (taskId: string) => (await get(taskId)).result ?? {}

    it("refusals come in order: removed method, undeclared extension, unknown task", async () => {
      for (const removed of ["tasks/list", "tasks/result"]) {
        const refused = await peer().request(rpc(removed, { taskId: "x" }, {}), { "mcp-name": "x" })
        expect(refused.error?.code).toBe(-32601)
      }
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const refused = await peer().request(rpc(method, { taskId: "no-such-task", inputResponses: {} }, {}), { "mcp-name": "no-such-task" })
        expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [tasksExtension]: {} } } } })
        const unknown = await peer().request(rpc(method, { taskId: "no-such-task", inputResponses: {} }), { "mcp-name": "no-such-task" })
        expect(unknown.error).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" })
      }
      const required = await call("job", { ms: 1 }, {})
      expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [tasksExtension]: {} } } } })
    })

    it("cancelling a running task interrupts its work (the finalizer runs) and it ends cancelled", async () => {
      const created = checked(await call("job", {}), "tools/call").result!
      expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number), pollIntervalMs: 250 })
      expect(Object.keys(created).toSorted()).toEqual(["_meta", "createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "taskId", "ttlMs"])
      const taskId = String(created["taskId"])
      expect(await statusOf(taskId)).toMatchObject({ resultType: "complete", taskId, status: "working" })
      const ack = await peer().request(rpc("tasks/cancel", { taskId }), { "mcp-name": taskId })
      expect(ack.result).toEqual({ resultType: "complete", _meta: expect.any(Object) })
      const cancelled = await eventually(() => statusOf(taskId), (task) => task["status"] === "cancelled")
      expect(cancelled).not.toHaveProperty("result")
      const stats = await eventually(() => call("stats", {}), (frame) => (frame.result?.["structuredContent"] as { interrupted?: number } | undefined)?.interrupted === 1)
      expect(stats.result?.["structuredContent"]).toMatchObject({ started: 1, interrupted: 1, finished: 0 })
      if (stderr !== undefined) expect(stderr()).toContain("job interrupted")
      // a terminal task never changes, and its cancel is still acknowledged
      expect((await peer().request(rpc("tasks/cancel", { taskId }), { "mcp-name": taskId })).result).toMatchObject({ resultType: "complete" })
      expect(await statusOf(taskId)).toMatchObject({ status: "cancelled" })
    })

    it("a task that asks two inputs at once is answered one by one", async () => {
      const taskId = String((await call("two_inputs", {})).result!["taskId"])
      const waiting = await eventually(() => statusOf(taskId), (task) => task["status"] === "input_required")
      const requests = waiting["inputRequests"] as Record<string, { method: string }>
      expect(Object.keys(requests).toSorted()).toEqual(["first", "second"])
      expect(requests["first"]!.method).toBe("elicitation/create")
      const update = (inputResponses: Record<string, unknown>) =>
        peer().request(rpc("tasks/update", { taskId, inputResponses }), { "mcp-name": taskId })
      expect((await update({ first: { action: "accept", content: { choice: "a" } }, never_asked: { x: 1 } })).result)
        .toEqual({ resultType: "complete", _meta: expect.any(Object) })
      const half = await statusOf(taskId)
      expect(half).toMatchObject({ status: "input_required" })
      expect(Object.keys(half["inputRequests"] as object)).toEqual(["second"])
      // an answered key is ignored, not re-applied
      await update({ first: { action: "accept", content: { choice: "changed" } } })
      await update({ second: { action: "accept", content: { choice: "b" } } })
      const done = await eventually(() => statusOf(taskId), (task) => task["status"] === "completed")
      expect(done["result"]).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "first=a second=b" }] })
    })

    it("notifications/tasks reach a listen stream that follows the task", async () => {
      const taskId = String((await call("job", {})).result!["taskId"])
      const stream = await peer().listen({ taskIds: [taskId, "not-a-task"] })
      expect(stream.first).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { taskIds: [taskId] } }
      })
      await peer().request(rpc("tasks/cancel", { taskId }), { "mcp-name": taskId })
      const change = await stream.next()
      expect(change).toMatchObject({ method: "notifications/tasks", params: { taskId, status: "cancelled" } })
      expect(change.params?._meta?.[subscriptionId]).toBeDefined()
      const refused = await peer().listen({ taskIds: [taskId] })
      expect(refused.first.error).toBeUndefined()
    })
  })

// ---- stdio: a real child process ------------------------------------------------------------

let stdio: StdioProcess
const frames: Array<Frame> = []
let read = 0

const take = async (accept: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const lines = stdio.lines()
    for (; read < lines.length; read++) frames.push(JSON.parse(lines[read]!) as Frame)
    const index = frames.findIndex(accept)
    if (index >= 0) return frames.splice(index, 1)[0]!
    if (Date.now() > deadline) throw new Error(`no matching frame; stderr: ${stdio.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const stdioPeer: Peer = {
  request: async (message) => {
    stdio.write(JSON.stringify(message) + "\n")
    return checked(await take((frame) => frame["id"] === message.id && !("method" in frame)), message.method)
  },
  listen: async (notifications) => {
    const message = rpc("subscriptions/listen", { notifications })
    stdio.write(JSON.stringify(message) + "\n")
    const mine = (frame: Frame) => frame["id"] === message.id || frame.params?._meta?.[subscriptionId] === message.id
    return { first: await take(mine), next: () => take(mine) }
  }
}

beforeAll(() => {
  stdio = spawnServer(["test/support/TaskServerMain.ts"])
})

afterAll(async () => {
  stdio.child.stdin.end()
  expect((await stdio.exited).code).toBe(0)
})

behaves("Tasks over stdio", () => stdioPeer, () => stdio.stderr())

describe("Tasks over stdio, time to live", () => {
  it("past its ttlMs a task is -32602 (expired)", async () => {
    const short = spawnServer(["test/support/TaskServerMain.ts", "--ttl", "400"])
    try {
      const message = rpc("tools/call", { name: "job", arguments: { ms: 1 } })
      short.write(JSON.stringify(message) + "\n")
      const [created] = await short.read(1)
      const taskId = String((created!["result"] as Record<string, unknown>)["taskId"])
      expect((created!["result"] as Record<string, unknown>)["ttlMs"]).toBe(400)
      await new Promise((resolve) => setTimeout(resolve, 600))
      short.write(JSON.stringify(rpc("tasks/get", { taskId })) + "\n")
      const [expired] = await short.read(1)
      expect(expired!["error"]).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task has expired" })
    } finally {
      short.child.stdin.end()
      await short.exited
    }
  })
})

// ---- HTTP: a real listener, several principals -------------------------------------------------

let http: Awaited<ReturnType<typeof serveTasksHttp>>

const headersOf = (message: Message, user: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": message.method,
  "x-test-user": user,
  ...(message.method === "tools/call" ? { "mcp-name": String(message.params["name"]) } : {}),
  ...extra
})

const post = (message: Message, user = "alice", extra?: Record<string, string>) =>
  fetch(http.url, { method: "POST", headers: headersOf(message, user, extra), body: JSON.stringify(message) })

const sse = (response: Response, method: string) => {
  const next = eventsOf(response)
  return async (): Promise<Frame> => checked(await next() as Frame, method)
}

const httpPeerOf = (user: string): Peer => ({
  request: async (message, headers) => checked(await (await post(message, user, headers)).json() as Frame, message.method),
  listen: async (notifications) => {
    const response = await post(rpc("subscriptions/listen", { notifications }), user)
    if (response.headers.get("content-type")?.startsWith("application/json")) {
      return { first: await response.json() as Frame, next: () => Promise.reject(new Error("not a stream")) }
    }
    const next = sse(response, "subscriptions/listen")
    return { first: await next(), next }
  }
})

beforeAll(async () => {
  http = await serveTasksHttp()
})

afterAll(() => http.dispose())

behaves("Tasks over HTTP", () => httpPeerOf("alice"), undefined)

describe("Tasks over HTTP: capacity", () => {
  it("a principal past its active tasks is refused 503 with Retry-After and a retryable -32603", async () => {
    const tight = await serveTasksHttp({ maxActivePerPrincipal: 1 })
    try {
      const send = (message: Message) =>
        fetch(tight.url, { method: "POST", headers: headersOf(message, "carol"), body: JSON.stringify(message) })
      expect((await send(rpc("tools/call", { name: "job", arguments: {} }))).status).toBe(200)
      const refused = await send(rpc("tools/call", { name: "job", arguments: {} }))
      expect(refused.status).toBe(503)
      expect(refused.headers.get("retry-after")).not.toBeNull()
      expect((await refused.json() as Frame).error).toMatchObject({ code: -32603, data: { retryable: true, limit: 1 } })
    } finally {
      await tight.dispose()
    }
  })
})

describe("Tasks over HTTP: principals and headers", () => {
  it("another principal's task looks unknown to every method, and to a listen stream", async () => {
    const created = await (await post(rpc("tools/call", { name: "job", arguments: {} }), "alice")).json() as Frame
    const taskId = String(created.result!["taskId"])
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const response = await post(rpc(method, { taskId, inputResponses: {} }), "mallory", { "mcp-name": taskId })
      expect(response.status).toBe(400)
      expect((await response.json() as Frame).error).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" })
    }
    const stream = await httpPeerOf("mallory").listen({ taskIds: [taskId] })
    expect(stream.first).toMatchObject({ params: { notifications: { taskIds: [] } } })
    expect((await httpPeerOf("alice").request(rpc("tasks/get", { taskId }), { "mcp-name": taskId })).result).toMatchObject({ status: "working" })
    await post(rpc("tasks/cancel", { taskId }), "alice", { "mcp-name": taskId })
  })

  it("Mcp-Name must be the task id (400, -32020); the extension's -32021 is 400, removed methods 404", async () => {
    const created = await (await post(rpc("tools/call", { name: "job", arguments: { ms: 1 } }))).json() as Frame
    const taskId = String(created.result!["taskId"])
    const wrong = await post(rpc("tasks/get", { taskId }), "alice", { "mcp-name": "someone-elses-task" })
    expect(wrong.status).toBe(400)
    expect((await wrong.json() as Frame).error).toMatchObject({ code: -32020, data: { header: "Mcp-Name", body: "params.taskId" } })
    expect((await post(rpc("tasks/get", { taskId }, {}), "alice", { "mcp-name": taskId })).status).toBe(400)
    expect((await post(rpc("tasks/list", {}), "alice")).status).toBe(404)
    const encoded = `=?base64?${Buffer.from(taskId).toString("base64")}?=`
    expect((await post(rpc("tasks/get", { taskId }), "alice", { "mcp-name": encoded })).status).toBe(200)
  })
})
