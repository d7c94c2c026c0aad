/**
 * Everything servers as real child processes over HTTP on loopback, and the few requests the
 * durable-task tests send them: create a task, read it, open a listen stream. Each request is a
 * real 2026-07-28 request (full `_meta`, routing headers) from a client that negotiated the Tasks
 * extension.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Http from "node:http"

const tasksExtension = "io.modelcontextprotocol/tasks"

export const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [tasksExtension]: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "snodo-task-tests", version: "0.1.0" }
}

export interface Server {
  readonly child: ChildProcess
  readonly url: string
  readonly stderr: () => string
  /** SIGKILL: no finalizer runs, leases stay taken until they run out. */
  readonly kill9: () => Promise<void>
  /** SIGTERM, and waits for the exit. */
  readonly stop: () => Promise<void>
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })

/** Starts `node script ...args --http --port 0` (as `user` when given) and resolves once it logs its URL. */
export const start = (
  script: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {},
  user?: { readonly uid: number; readonly gid: number }
): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, "--http", "--port", "0", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
      ...user
    })
    // Never outlive the test process, however it ends.
    const orphaned = () => child.kill("SIGKILL")
    process.once("exit", orphaned)
    child.once("exit", () => process.removeListener("exit", orphaned))
    let stderr = ""
    // Nothing belongs on stdout over HTTP; whatever comes is kept with stderr, for the reports.
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the server did not start:\n${stderr}`))
    }, 30_000)
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk
      const match = /listening on (http:\/\/\S+)/.exec(stderr)
      if (match !== null && timer.hasRef()) {
        clearTimeout(timer)
        timer.unref()
        resolve({
          child,
          url: match[1]!,
          stderr: () => stderr,
          kill9: () => {
            child.kill("SIGKILL")
            return exited(child)
          },
          stop: () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
            return exited(child)
          }
        })
      }
    })
    // "close", not "exit": by then everything the process wrote has been read.
    child.once("close", (code) => {
      if (timer.hasRef()) {
        clearTimeout(timer)
        reject(new Error(`the server exited (${String(code)}):\n${stderr}`))
      }
    })
  })

const nameParams: Readonly<Record<string, string>> = { "tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" }

const agent = new Http.Agent({ keepAlive: true, maxSockets: 64 })

let ids = 0

/** An HTTP exchange: the status, the response headers, and the JSON-RPC response (the last frame of an SSE answer). */
export interface Exchange {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly frame: Record<string, unknown>
}

/** One request, with extra headers (`x-test-user` names the caller of a `serveTasksHttp` server). */
export const post = (
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = meta["io.modelcontextprotocol/clientCapabilities"]
): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const _meta = { ...meta, "io.modelcontextprotocol/clientCapabilities": capabilities }
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params: { ...params, _meta } })
    const nameParam = nameParams[method]
    const target = new URL(url)
    const request = Http.request({
      agent,
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(nameParam === undefined ? {} : { "mcp-name": String(params[nameParam]) }),
        "content-length": Buffer.byteLength(body),
        ...headers
      }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => void (text += chunk))
      response.on("end", () => {
        try {
          const frames = (response.headers["content-type"] ?? "").includes("text/event-stream")
            ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
            : [JSON.parse(text) as Record<string, unknown>]
          resolve({ status: response.statusCode ?? 0, headers: response.headers, frame: frames.at(-1)! })
        } catch (error) {
          reject(new Error(`${method}: HTTP ${response.statusCode}: ${text.slice(0, 300)}`, { cause: error }))
        }
      })
    })
    request.on("error", reject)
    request.end(body)
  })

/** One request; resolves with its JSON-RPC response (the last frame of an SSE answer). */
export const rpc = (url: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
  post(url, method, params).then((exchange) => exchange.frame)

export interface WireTask {
  readonly taskId: string
  readonly status: string
  readonly lastUpdatedAt: string
  readonly result?: { readonly content: ReadonlyArray<{ readonly text?: string }> }
  readonly [key: string]: unknown
}

const resultOf = (method: string, response: Record<string, unknown>): Record<string, unknown> => {
  if (response["error"] !== undefined) throw new Error(`${method}: ${JSON.stringify(response["error"])}`)
  return response["result"] as Record<string, unknown>
}

/** `tools/call` of a task tool; resolves with the created task. */
export const createTask = async (url: string, tool: string, args: Record<string, unknown>): Promise<WireTask> => {
  const result = resultOf("tools/call", await rpc(url, "tools/call", { name: tool, arguments: args }))
  if (result["resultType"] !== "task") throw new Error(`tools/call ${tool} did not create a task: ${JSON.stringify(result)}`)
  return result as unknown as WireTask
}

/** `tasks/get`. */
export const getTask = async (url: string, taskId: string): Promise<WireTask> =>
  resultOf("tasks/get", await rpc(url, "tasks/get", { taskId })) as unknown as WireTask

export const terminal = (status: string): boolean => status === "completed" || status === "failed" || status === "cancelled"

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls until every task is terminal (through the given servers in turn); resolves with each one's final state. */
export const settle = async (urls: ReadonlyArray<string>, taskIds: ReadonlyArray<string>, timeoutMs: number): Promise<Map<string, WireTask>> => {
  const done = new Map<string, WireTask>()
  const deadline = Date.now() + timeoutMs
  let turn = 0
  while (done.size < taskIds.length) {
    if (Date.now() > deadline) throw new Error(`${taskIds.length - done.size} of ${taskIds.length} tasks still not terminal`)
    const pending = taskIds.filter((id) => !done.has(id))
    for (let at = 0; at < pending.length; at += 50) {
      const batch = pending.slice(at, at + 50)
      const read = await Promise.all(batch.map((id) => getTask(urls[turn++ % urls.length]!, id)))
      for (const task of read) if (terminal(task.status)) done.set(task.taskId, task)
    }
    if (done.size < taskIds.length) await sleep(250)
  }
  return done
}

/** A `subscriptions/listen` stream: the notifications it received so far, and a way to close it. */
export interface ListenStream {
  readonly notifications: () => ReadonlyArray<Record<string, unknown>>
  readonly waitFor: (predicate: (notification: Record<string, unknown>) => boolean, timeoutMs: number) => Promise<Record<string, unknown>>
  readonly close: () => void
}

/** Opens a listen stream with this filter; resolves once the server acknowledged it. */
export const listen = (url: string, notifications: Record<string, unknown>): Promise<ListenStream> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++ids, method: "subscriptions/listen", params: { notifications, _meta: meta } })
    const target = new URL(url)
    const received: Array<Record<string, unknown>> = []
    const waiters = new Set<() => void>()
    const request = Http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
        "content-length": Buffer.byteLength(body)
      }
    }, (response) => {
      let buffer = ""
      let acknowledged = false
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        buffer += chunk
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          const event = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
          const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).join("\n")
          if (data.trim() === "") continue
          const frame = JSON.parse(data) as Record<string, unknown>
          received.push(frame)
          for (const wake of waiters) wake()
          if (!acknowledged) {
            acknowledged = true
            resolve({
              notifications: () => received,
              waitFor: (predicate, timeoutMs) =>
                new Promise((found, fail) => {
                  const check = () => {
                    const hit = received.find(predicate)
                    if (hit === undefined) return
                    waiters.delete(check)
                    clearTimeout(timer)
                    found(hit)
                  }
                  const timer = setTimeout(() => {
                    waiters.delete(check)
                    fail(new Error(`no matching notification within ${timeoutMs} ms; received ${JSON.stringify(received).slice(0, 500)}`))
                  }, timeoutMs)
                  waiters.add(check)
                  check()
                }),
              close: () => request.destroy()
            })
          }
        }
      })
      response.on("error", () => undefined)
      if (response.statusCode !== 200) reject(new Error(`listen: HTTP ${response.statusCode}`))
    })
    request.on("error", (error) => {
      if (received.length === 0) reject(error)
    })
    request.end(body)
  })
