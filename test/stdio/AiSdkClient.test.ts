/**
 * What a user of the Vercel AI SDK meets: its stdio client (`@ai-sdk/mcp` 2.0.99) spawning the
 * everything server as `npm run everything` starts it (`examples/everything/main.mjs`: the esbuild
 * bundle docs/startup.md recommends, `examples/everything/bundle.ts`, built here if the sources
 * changed since it was, with Node's compile cache on). The client sends `server/discover` and waits
 * 1 s for it before falling back to `initialize`: a server that answers later is spoken to in the
 * 2025-11-25 era, and one that serves only 2026-07-28 is then unreachable. The tests assert the era
 * the client settled on.
 *
 * The compile cache is filled by one start first, as every start after a user's first has it
 * (`module.enableCompileCache()` in `examples/everything/main.mjs`).
 *
 * The 1 s is a race with the machine, not only with the server. Quiet, the bundle answers in a
 * fraction of it (docs/benchmarks.md, "Start-up, as users start it"); on two cores that other work
 * keeps busy (the whole test suite, other checkouts), a start waits for a core and any Node
 * server, the official SDK's one-tool server included, can take over a second (this file failed so
 * twice on a fresh clone). So each test spawns the server up to three times and takes the first
 * spawn that negotiated 2026-07-28. After a spawn that fell back, it times spawn → first
 * `server/discover` answer of the everything server and of the official SDK's one-tool server
 * (`bench/startup/official-stdio.mjs`, as its users run it) spawned alone, and the CPU time each
 * used to answer (`/proc/<pid>/stat`: steady however busy the machine). If all three spawns fell
 * back, the test fails, unless the official server too took over 0.7 s every time and the
 * everything server used no more than 1.5 × its CPU: then the machine, not the server, missed the
 * client's second, and the test is skipped saying so. A server that is slow to start, or that the
 * client cannot reach for another reason, fails.
 */
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { beforeAll, describe, expect, it } from "vitest"
import { fileURLToPath } from "node:url"
import { bundle } from "../../examples/everything/bundle.ts"

const main = fileURLToPath(new URL("../../examples/everything/main.mjs", import.meta.url))
const official = fileURLToPath(new URL("../../bench/startup/official-stdio.mjs", import.meta.url))

/** The environment the AI SDK gives a server it spawns (PATH, HOME and a few more; no NODE_OPTIONS). */
const serverEnv = { PATH: process.env["PATH"] ?? "" }

beforeAll(async () => {
  await bundle()
  // One start that ends at once (stdin closed): fills the compile cache the client's spawns use.
  execFileSync(process.execPath, [main, "--stdio"], { input: "", stdio: ["pipe", "ignore", "ignore"], env: serverEnv })
}, 60_000)

const connect = (args: ReadonlyArray<string>): Promise<MCPClient> =>
  createMCPClient({ transport: new StdioMCPTransport({ command: process.execPath, args: [main, "--stdio", ...args], stderr: "ignore" }), name: "snodo-ai-sdk-test" })

/** CPU time a process has used so far (user + system, every thread, ms; Linux `/proc`, 10 ms ticks). */
const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * A server spawned alone: milliseconds from spawn to its first `server/discover` answer (the
 * request written at spawn), and the CPU time it used to then.
 */
const discover = (script: string, args: ReadonlyArray<string>): Promise<{ readonly ms: number; readonly cpu: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "ignore"], env: serverEnv })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error("no server/discover answer within 10 s"))
    }, 10_000)
    child.stdout.once("data", () => {
      const ms = performance.now() - started
      const cpu = cpuMs(child.pid!)
      clearTimeout(timer)
      child.kill("SIGTERM")
      resolve({ ms, cpu })
    })
    child.stdin.on("error", () => {})
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } })}\n`)
  })

const attempts = 3

/**
 * A client that negotiated 2026-07-28, of at most `attempts` fresh spawns, or `busy` (why) when
 * every spawn fell back while the machine, not the server, was slow; fails otherwise.
 */
const connectModern = async (args: ReadonlyArray<string>): Promise<MCPClient | { readonly busy: string }> => {
  const seen: Array<string> = []
  let oursCpu = 0
  let theirsCpu = 0
  let slowMachine = true
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let era: string
    try {
      const client = await connect(args)
      era = client.initializeResult.protocolVersion
      if (era === "2026-07-28") return client
      await client.close()
    } catch (error) {
      era = `no connection (${error instanceof Error ? error.message : String(error)})`
    }
    const ours = await discover(main, ["--stdio", ...args])
    const theirs = await discover(official, [])
    oursCpu += ours.cpu
    theirsCpu += theirs.cpu
    slowMachine &&= theirs.ms > 700
    seen.push(
      `spawn ${attempt}: ${era.slice(0, 120)}; spawned alone right after, server/discover answered in ${Math.round(ours.ms)} ms ` +
        `(${ours.cpu} ms of CPU; the official SDK's one-tool server: ${Math.round(theirs.ms)} ms, ${theirs.cpu} ms of CPU)`
    )
    process.stderr.write(`AiSdkClient: ${seen.at(-1)!}\n`)
  }
  const report = `the AI SDK's client never negotiated 2026-07-28 in ${attempts} spawns:\n${seen.join("\n")}`
  // The machine missed the client's second: even the official server took over 0.7 s each time,
  // and ours used no more than 1.5 × its CPU to answer.
  if (slowMachine && oursCpu <= 1.5 * theirsCpu) return { busy: report }
  throw new Error(report)
}

describe("the AI SDK's stdio client", () => {
  it("negotiates 2026-07-28 with the everything server and lists its tools", async (context) => {
    const client = await connectModern([])
    if ("busy" in client) return context.skip(`the machine is too busy for a 1 s start (${client.busy})`)
    try {
      expect(client.initializeResult.protocolVersion).toBe("2026-07-28")
      expect(client.serverInfo.name).toBe("snodo-everything")
      const tools = await client.tools()
      expect(Object.keys(tools)).toContain("echo")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("reaches a server that speaks 2026-07-28 only", async (context) => {
    const client = await connectModern(["--dialects", "2026-07-28"])
    if ("busy" in client) return context.skip(`the machine is too busy for a 1 s start (${client.busy})`)
    try {
      expect(client.initializeResult.protocolVersion).toBe("2026-07-28")
    } finally {
      await client.close()
    }
  }, 60_000)
})
