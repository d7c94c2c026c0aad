/**
 * curl as a client of an MCP endpoint: one request answered in full, or a stream read as it comes.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"

const modern = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }

/** A 2026-07-28 request body (with `_meta`) and its headers as curl arguments. */
export const requestArgs = (method: string, params: Record<string, unknown>, id: number, name?: string): Array<string> => {
  const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...modern, ...(params["_meta"] as object | undefined) } } }
  return [
    "-H", "content-type: application/json",
    "-H", "accept: application/json, text/event-stream",
    "-H", "mcp-protocol-version: 2026-07-28",
    "-H", `mcp-method: ${method}`,
    ...(name === undefined ? [] : ["-H", `mcp-name: ${name}`]),
    "--data-binary", JSON.stringify(body)
  ]
}

/** Runs curl to completion: its stdout (with `-w` output) and stderr. */
export const curl = (args: ReadonlyArray<string>, timeoutMs = 20_000): Promise<{ readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) =>
    execFile("curl", ["-sS", "--max-time", String(Math.ceil(timeoutMs / 1000)), ...args], { encoding: "utf8" }, (error, stdout, stderr) =>
      error === null ? resolve({ stdout, stderr }) : reject(new Error(`curl failed: ${error.message}\n${stderr}`))
    )
  )

/** A curl reading a stream (`-N`): what it printed so far, a wait for a pattern, and a stop. */
export interface CurlStream {
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>
  readonly stop: () => void
  readonly process: ChildProcess
}

export const curlStream = (args: ReadonlyArray<string>): CurlStream => {
  const child = spawn("curl", ["-sS", "-N", ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const waiters = new Set<() => void>()
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8")
    for (const waiter of waiters) waiter()
  })
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  return {
    process: child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output)
          if (match === null) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(match[0])
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`curl: no ${pattern} within ${timeoutMs} ms; it printed:\n${output}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
    stop: () => void child.kill()
  }
}
