/**
 * Two instances of the reports server on one PostgreSQL, and a client talking to both:
 *
 *   npx node examples/08-tasks-postgres/demo.ts [--url postgres://postgres@127.0.0.1:5432/postgres] [--schema snodo_example]
 *
 * It migrates the schema (the deploy step), starts instance A on :3008 and B on :3009 (child
 * processes, stopped at the end), then: creates a task on B and reads it on A; follows it from a
 * listen stream on A and receives its completion, which B published; creates a long task on A and
 * cancels it through B. Every step prints what it saw.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { migrate } from "./server.ts"

const argv = process.argv.slice(2)
const flag = (name: string, fallback: string): string => {
  const at = argv.indexOf(name)
  return at >= 0 ? argv[at + 1] ?? fallback : fallback
}
const url = flag("--url", process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres")
const schema = flag("--schema", "snodo_example")
const ports = { A: Number(flag("--port-a", "3008")), B: Number(flag("--port-b", "3009")) }

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  "io.modelcontextprotocol/clientInfo": { name: "reports-demo", version: "1.0.0" }
}
const say = (line: string) => process.stdout.write(`${line}\n`)

const children: Array<ChildProcess> = []
process.on("exit", () => children.forEach((child) => child.kill("SIGTERM")))

/** Starts one instance; resolves once it listens. */
const instance = (name: keyof typeof ports) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [new URL("main.ts", import.meta.url).pathname, "--port", String(ports[name]), "--url", url, "--schema", schema, "--name", `instance ${name}`], {
      stdio: ["ignore", "ignore", "pipe"]
    })
    children.push(child)
    let seen = ""
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      seen += chunk
      const match = /listening on (\S+)/.exec(seen)
      if (match !== null) resolve(match[1]!)
    })
    child.once("exit", (code) => reject(new Error(`instance ${name} exited (${String(code)}):\n${seen}`)))
  })

let ids = 0
/** One request, answered as JSON. */
const rpc = async (endpoint: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const name = method === "tools/call" ? params["name"] : params["taskId"]
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {})
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params: { ...params, _meta: meta } })
  })
  const frame = await response.json() as { result?: Record<string, unknown>; error?: unknown }
  if (frame.result === undefined) throw new Error(`${method}: ${JSON.stringify(frame.error)}`)
  return frame.result
}

/** Opens a listen stream for these tasks; resolves with the first `notifications/tasks` whose status is terminal. */
const follow = async (endpoint: string, taskIds: ReadonlyArray<string>): Promise<Record<string, unknown>> => {
  const controller = new AbortController()
  const response = await fetch(endpoint, {
    method: "POST",
    signal: controller.signal,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method: "subscriptions/listen", params: { notifications: { taskIds }, _meta: meta } })
  })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) throw new Error("the listen stream ended")
    buffer += value
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer.slice(0, end).split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).join("")
      buffer = buffer.slice(end + 2)
      if (data === "") continue
      const frame = JSON.parse(data) as { method: string; params: Record<string, unknown> }
      if (frame.method === "notifications/subscriptions/acknowledged") say(`A: listening for ${taskIds.join(", ")}`)
      if (frame.method === "notifications/tasks" && ["completed", "failed", "cancelled"].includes(String(frame.params["status"]))) {
        controller.abort()
        return frame.params
      }
    }
  }
}

const text = (task: Record<string, unknown>) =>
  ((task["result"] as { content?: Array<{ text?: string }> } | undefined)?.content ?? [])[0]?.text

say(`migrating ${schema} on ${url.replace(/\/\/[^@]*@/, "//")}`)
await Effect.runPromise(migrate({ url, schema }))
const [a, b] = await Promise.all([instance("A"), instance("B")])
say(`A: ${a}\nB: ${b}`)

const report = await rpc(b, "tools/call", { name: "build_report", arguments: { title: "Q3", seconds: 2 } })
say(`B: created task ${String(report["taskId"])} (${String(report["status"])})`)
const seen = await rpc(a, "tasks/get", { taskId: report["taskId"] })
say(`A: tasks/get ${String(seen["taskId"])}: ${String(seen["status"])}`)
const finished = await follow(a, [String(report["taskId"])])
say(`A: notifications/tasks: ${String(finished["status"])}: ${text(finished)}`)

const long = await rpc(a, "tools/call", { name: "build_report", arguments: { title: "annual", seconds: 300 } })
say(`A: created task ${String(long["taskId"])} (${String(long["status"])})`)
await rpc(b, "tasks/cancel", { taskId: long["taskId"] })
say("B: tasks/cancel acknowledged")
const cancelled = await rpc(a, "tasks/get", { taskId: long["taskId"] })
say(`A: tasks/get ${String(cancelled["taskId"])}: ${String(cancelled["status"])}`)
process.exit(finished["status"] === "completed" && cancelled["status"] === "cancelled" ? 0 : 1)
