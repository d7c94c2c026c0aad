/**
 * What real stdio clients see of a cold start (`npm run bench -- --scenarios clients`):
 *
 * - spawn → first `server/discover` answer: a fresh process, the request written at spawn, timed
 *   to the first answer line that carries `supportedVersions`;
 * - the era the Vercel AI SDK's stdio client (`@ai-sdk/mcp` 2.0.99) negotiates: it sends
 *   `server/discover` and waits 1 s (`DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT`) before falling back to
 *   `initialize` (2025-11-25); a server that answers later is spoken to in the older era, and a
 *   2026-07-28-only server is then unreachable.
 *
 * Commands are spawned as a user's client spawns them (`npm run -s everything -- --stdio` from the
 * checkout, so npm's own start-up is in the figure), in a process group of their own, killed as a
 * group when done or when the bench exits.
 */
import { spawn } from "node:child_process"
import { createMCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { adopt, release } from "./children.ts"
import { meta } from "./wire.ts"

/** A command a client spawns. */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/**
 * The environment of a user's shell: without the npm variables and `NODE_OPTIONS` the bench runs
 * under (so `npm run` in the checkout adds its own, as it does for a user).
 */
export const shellEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key === "NODE_OPTIONS" || key.startsWith("npm_")) continue
    env[key] = value
  }
  return env
}

const discoverLine = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } })}\n`

const killGroup = (pid: number | undefined): void => {
  if (pid === undefined) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // already gone
  }
  release(pid)
}

/** Milliseconds from spawn to the first `server/discover` answer (fails after `timeoutMs`). */
export const discoverOnce = (target: Command, env: Readonly<Record<string, string>>, timeoutMs = 30_000): Promise<number> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(target.command, [...target.args], { stdio: ["pipe", "pipe", "pipe"], env, detached: true })
    adopt(child.pid)
    let stderr = ""
    let buffered = ""
    let settled = false
    const finish = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.stdin.end()
      killGroup(child.pid)
      outcome()
    }
    const timer = setTimeout(() => finish(() => reject(new Error(`no server/discover answer within ${timeoutMs} ms: ${stderr.slice(-600)}`))), timeoutMs)
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096)
    })
    child.on("exit", (code) => finish(() => reject(new Error(`exited with ${code} before answering: ${stderr.slice(-600)}`))))
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk
      const newline = buffered.indexOf("\n")
      if (newline < 0) return
      const ms = performance.now() - t0
      const line = buffered.slice(0, newline)
      finish(() => line.includes("\"supportedVersions\"") ? resolve(ms) : reject(new Error(`not a discover result: ${line.slice(0, 300)}`)))
    })
    child.stdin.on("error", () => {}) // the group may be gone before the pipe closes
    child.stdin.write(discoverLine)
  })

/**
 * One fresh spawn by the AI SDK's stdio client: the protocol version it settled on
 * (`2026-07-28` after `server/discover`, `2025-11-25` after falling back to `initialize`), or the
 * error's message when it could not connect.
 */
export const aiSdkEra = async (target: Command, cwd: string): Promise<string> => {
  const transport = new StdioMCPTransport({ command: target.command, args: [...target.args], cwd, stderr: "ignore" })
  let pid: number | undefined
  try {
    const client = await createMCPClient({ transport, name: "snodo-bench" })
    pid = (transport as unknown as { process?: { pid?: number } }).process?.pid
    const era = client.initializeResult.protocolVersion
    await client.close()
    return era
  } catch (error) {
    return `error: ${error instanceof Error ? error.message : String(error)}`
  } finally {
    // The client's close aborts the npm process; its server ends on stdin's end. Make sure of it.
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGTERM")
      } catch {
        // already gone
      }
    }
  }
}
