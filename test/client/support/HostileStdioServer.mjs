/**
 * A hostile (or merely broken) MCP server over stdio, for the client's tests of issue 38 and 36:
 * `node HostileStdioServer.mjs <scenario> [count]`. Plain JavaScript so that it starts at once.
 *
 * Every scenario speaks enough of the protocol to be connected to (a 2026-07-28 `server/discover`,
 * or the 2025-11-25 `initialize` for the `legacy-*` ones), then misbehaves as its name says.
 * What it saw (answers, refusals, cancels) goes to stderr as `seen <what>` lines.
 */
import { createInterface } from "node:readline"

const scenario = process.argv[2] ?? "well-behaved"
const count = Number(process.argv[3] ?? "1000")
const out = process.stdout
const seen = (what) => process.stderr.write(`seen ${what}\n`)

/** Writes a line, waiting for the pipe when it is full. */
const send = (line) => out.write(`${line}\n`) ? Promise.resolve() : new Promise((resolve) => out.once("drain", resolve))
const json = (message) => send(JSON.stringify({ jsonrpc: "2.0", ...message }))
const result = (id, value) => json({ id, result: value })

const legacy = scenario.startsWith("legacy-")
const discover = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: scenario === "no-list-changed" ? { tools: {} } : { tools: { listChanged: true } },
  serverInfo: { name: "hostile", version: "0.0.0" }
}

const elicitation = (n) => ({ method: "elicitation/create", params: { message: `question ${n}`, requestedSchema: { type: "object", properties: {} } } })

// C1 and junk: output before (or instead of) the protocol.
if (scenario === "invalid-flood") {
  // never reads its stdin; writes invalid lines as fast as the pipe takes them
  const flood = async () => {
    for (let i = 0; i < count; i++) await send(`not json ${i}`)
  }
  void flood()
  setInterval(() => {}, 60_000)
} else {
  if (scenario === "junk-first") {
    for (let i = 0; i < count; i++) out.write(`Starting up, step ${i}...\n`)
  }
  if (scenario === "junk-glued") out.write("Server running on stdio")
  if (scenario === "ignores-signals") {
    process.on("SIGTERM", () => seen("SIGTERM"))
    process.stdin.on("end", () => seen("stdin closed"))
  }

  let answers = 0
  let errors = 0
  let taskPolls = 0
  // a well-formed task (the client checks every result against the method table): the bounds are what is hostile
  const task = { taskId: "task-1", createdAt: "2026-07-28T00:00:00Z", lastUpdatedAt: "2026-07-28T00:00:00Z", ttlMs: null, pollIntervalMs: 20 }
  let updates = 0
  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    let message
    try {
      message = JSON.parse(line)
    } catch {
      return seen(`unparsable ${line.slice(0, 80)}`)
    }
    const { id, method, params } = message
    if (method === undefined) {
      if (message.error !== undefined) errors++
      else answers++
      if (scenario !== "legacy-elicit-flood") seen(message.error === undefined ? `answer ${String(id)}` : `error ${message.error.code} ${message.error.message}`)
      return
    }
    if (method === "notifications/cancelled") return seen(`cancelled ${params?.requestId}`)
    if (method === "notifications/initialized") {
      if (scenario === "legacy-elicit-flood") {
        void (async () => {
          for (let i = 0; i < count; i++) await json({ id: `e${i}`, ...elicitation(i) })
          seen("flood written")
        })()
      }
      return
    }
    if (id === undefined) return
    switch (method) {
      case "server/discover":
        if (legacy) return void json({ id, error: { code: -32601, message: "Method not found" } })
        if (scenario === "no-discover-answer") return
        return void result(id, discover)
      case "initialize":
        if (scenario === "junk-glued" || legacy) {
          return void result(id, {
            protocolVersion: "2025-11-25",
            capabilities: scenario === "legacy-no-list-changed" ? { tools: {} } : { tools: { listChanged: true } },
            serverInfo: { name: "hostile-legacy", version: "0.0.0" }
          })
        }
        return void json({ id, error: { code: -32601, message: "Method not found" } })
      case "ping":
        return void result(id, {})
      case "subscriptions/listen": {
        const subscriptionId = id
        const meta = { "io.modelcontextprotocol/subscriptionId": subscriptionId }
        const honoured = scenario === "no-list-changed" ? {} : params?.notifications ?? {}
        void json({ method: "notifications/subscriptions/acknowledged", params: { notifications: honoured, _meta: meta } })
        if (scenario === "listen-flood") {
          void (async () => {
            for (let i = 0; i < count; i++) await json({ method: "notifications/tools/list_changed", params: { _meta: meta } })
            await result(subscriptionId, { resultType: "complete", _meta: meta }) // the server ends the stream
          })()
        }
        return
      }
      case "tools/call":
        switch (scenario) {
          case "questions":
            return void result(id, {
              resultType: "input_required",
              inputRequests: Object.fromEntries(Array.from({ length: count }, (_, i) => [`q${i}`, elicitation(i)]))
            })
          case "deep":
            return void send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":${"[".repeat(count)}${"]".repeat(count)}}}`)
          case "duplicate-key":
            return void send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"content":[]}}`)
          case "null-id-error":
            return void json({ id: null, error: { code: -32600, message: "Invalid request: this server cannot read that" } })
          case "silent":
            return
          case "task-asks":
          case "task-forever":
            return void result(id, { resultType: "task", ...task, status: "working" })
          case "long-line":
            return void (async () => {
              const chunk = "x".repeat(1024 * 1024)
              for (let i = 0; i < count; i++) await new Promise((resolve) => out.write(chunk, resolve))
            })()
          default:
            return void result(id, { content: [{ type: "text", text: `answers=${answers} errors=${errors}` }] })
        }
      case "tasks/get":
        taskPolls++
        if (scenario === "task-asks") {
          return void result(id, {
            resultType: "complete",
            ...task,
            status: "input_required",
            inputRequests: { [`ask-${taskPolls}`]: elicitation(taskPolls) }
          })
        }
        return void result(id, { resultType: "complete", ...task, status: "working" })
      case "tasks/update":
        updates++
        seen(`update ${updates}`)
        return void result(id, { resultType: "complete" })
      case "tasks/cancel":
        seen("tasks/cancel")
        return void result(id, { resultType: "complete" })
      default:
        return void json({ id, error: { code: -32601, message: `Method not found: ${method}` } })
    }
  })
  lines.on("close", () => {
    if (scenario !== "ignores-signals") process.exit(0)
  })
  if (scenario === "ignores-signals") setInterval(() => {}, 60_000)
}
