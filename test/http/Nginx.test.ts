/**
 * Issue 37: Debian's nginx in front of the everything server, as a deployment runs it: TLS and
 * HTTP/2 terminated by nginx (certificates made at test time), HTTP/1.1 upstream to the server,
 * which trusts the proxy's `X-Forwarded-*` (`--trust-proxy loopback`). The official client 2.4.0
 * over HTTPS through it: tools, progress, a listen stream, a 2025-11-25 session with its GET
 * stream, and cancellation reaching the handler when the client goes away.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type ChildProcess, spawn } from "node:child_process"
import { Agent, fetch as undiciFetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCertificates, type TestCertificates } from "../support/Certificates.ts"
import { freePort } from "../support/FreePort.ts"
import { type Nginx, startNginx } from "../support/Nginx.ts"

interface Everything {
  readonly port: number
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

const startEverything = (args: ReadonlyArray<string>): Promise<Everything> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["examples/everything/main.mjs", "--port", "0", "--tasks", "memory", ...args], {
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const timer = setTimeout(() => reject(new Error(`the everything server did not start: ${stderr}`)), 30_000)
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      const match = /listening on https?:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)
      if (match === null) return
      clearTimeout(timer)
      resolve({
        port: Number(match[1]),
        stderr: () => stderr,
        stop: () => {
          if (child.exitCode === null) child.kill("SIGTERM")
          return exited
        }
      })
    })
    child.once("exit", (code) => reject(new Error(`the everything server exited (${code}): ${stderr}`)))
  })

let certificates: TestCertificates
let everything: Everything
let nginx: Nginx
let url: URL

beforeAll(async () => {
  certificates = makeCertificates()
  everything = await startEverything(["--trust-proxy", "loopback"])
  nginx = await startNginx({
    dir: certificates.dir,
    port: await freePort(),
    upstreamPort: everything.port,
    certFile: certificates.certFile,
    keyFile: certificates.keyFile
  })
  url = new URL(`https://localhost:${nginx.port}/mcp`)
}, 60_000)
afterAll(async () => {
  await nginx?.stop()
  await everything?.stop()
  certificates?.remove()
})

/** A client's fetch: HTTP/2 to nginx where it offers it (ALPN), trusting the application's CA. */
const fetchThrough = (dispatcher: Agent): typeof fetch => (input, init) =>
  undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>

const connect = async (era: "modern" | "legacy", onToolsChanged?: () => void) => {
  const dispatcher = new Agent({ connect: { ca: certificates.ca }, allowH2: true })
  const client = new Client({ name: "nginx-e2e", version: "1.0.0" }, {
    versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" },
    ...(onToolsChanged === undefined ? {} : { listChanged: { tools: { autoRefresh: false, onChanged: () => onToolsChanged() } } })
  })
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: fetchThrough(dispatcher) }))
  client.onclose = () => void dispatcher.close()
  return client
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text?: string }>)[0]?.text

const waitUntil = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Triggers a tools change until the client hears of it: the stream that carries it opens after
 * `connect` resolves, and changes published close together are sent as one, so each trigger is
 * given a second and a half to arrive before the next.
 */
const triggerUntilHeard = async (client: Client, heard: () => boolean, what: string) => {
  for (let attempt = 0; attempt < 8; attempt++) {
    await client.callTool({ name: "test_trigger_tool_change" })
    const deadline = Date.now() + 1500
    while (Date.now() < deadline) {
      if (heard()) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  throw new Error(`never heard: ${what}; nginx's access log:\n${nginx.accessLog()}`)
}

describe("the official client through nginx (TLS, HTTP/2) to the everything server", () => {
  it("2026-07-28: tools and progress", async () => {
    const client = await connect("modern")
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      expect(textOf(await client.callTool({ name: "test_simple_text" }))).toBe("This is a simple text response for testing.")
      const progress: Array<number> = []
      await client.callTool({ name: "test_tool_with_progress" }, { onprogress: (p) => void progress.push(p.progress) })
      expect(progress).toEqual([0, 50, 100])
      // nginx spoke HTTP/2 to the client and passed the calls upstream.
      expect(nginx.accessLog()).toMatch(/"POST \/mcp HTTP\/2\.0" 200/)
    } finally {
      await client.close()
    }
  }, 30_000)

  it("2026-07-28: a listen stream delivers a change through nginx", async () => {
    let changes = 0
    const client = await connect("modern", () => void changes++)
    try {
      await triggerUntilHeard(client, () => changes > 0, "notifications/tools/list_changed on the listen stream")
    } finally {
      await client.close()
    }
  }, 30_000)

  it("2025-11-25: a session with its GET stream", async () => {
    let changes = 0
    const client = await connect("legacy", () => void changes++)
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25")
      expect(textOf(await client.callTool({ name: "test_simple_text" }))).toBe("This is a simple text response for testing.")
      await triggerUntilHeard(client, () => changes > 0, "notifications/tools/list_changed on the session's GET stream")
    } finally {
      await client.close()
    }
    // The GET stream ended when the client closed (its line is logged at its end).
    await waitUntil(() => /"GET \/mcp HTTP\/2\.0" 200/.test(nginx.accessLog()), "the GET stream in nginx's access log")
  }, 40_000)

  it("cancellation reaches the handler when the client goes away", async () => {
    const client = await connect("modern")
    try {
      const stats = async () => JSON.parse(textOf(await client.callTool({ name: "sleep_stats" })) ?? "{}") as { started: number; interrupted: number }
      const before = await stats()
      const abort = new AbortController()
      const call = client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, { signal: abort.signal })
      call.catch(() => undefined)
      await waitUntil(async () => (await stats()).started > before.started, "the sleep handler started")
      const abortedAt = Date.now()
      abort.abort()
      await expect(call).rejects.toThrow()
      await waitUntil(async () => (await stats()).interrupted > before.interrupted, "the sleep handler interrupted")
      expect(Date.now() - abortedAt).toBeLessThan(10_000)
    } finally {
      await client.close()
    }
  }, 40_000)
})
