/**
 * A server spawned as a real child process, spoken to line by line on the raw wire.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"

export interface StdioProcess {
  readonly child: ChildProcessWithoutNullStreams
  /** Writes raw text (add the newline yourself). */
  readonly write: (text: string) => void
  /** Resolves with the next `count` lines from stdout, parsed. */
  readonly read: (count: number, timeoutMs?: number) => Promise<Array<Record<string, unknown>>>
  /** Every stdout line so far, raw. */
  readonly lines: () => ReadonlyArray<string>
  readonly stderr: () => string
  /** Resolves with the exit code (or signal) once the process ends. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

export const spawnServer = (args: ReadonlyArray<string>): StdioProcess => {
  const child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "pipe"] })
  const lines: Array<string> = []
  let buffer = ""
  let stderr = ""
  const waiters: Array<() => void> = []
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk
    let newline = buffer.indexOf("\n")
    while (newline >= 0) {
      lines.push(buffer.slice(0, newline))
      buffer = buffer.slice(newline + 1)
      newline = buffer.indexOf("\n")
    }
    for (const wake of waiters.splice(0)) wake()
  })
  // A server that stopped reading (read backpressure) and exited leaves our writes unsent: EPIPE.
  child.stdin.on("error", () => undefined)
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }))
  })
  let consumed = 0
  const read = (count: number, timeoutMs = 15_000) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} lines; stderr: ${stderr}`)), timeoutMs)
      const check = () => {
        if (lines.length - consumed >= count) {
          clearTimeout(timer)
          const taken = lines.slice(consumed, consumed + count)
          consumed += count
          resolve(taken.map((line) => JSON.parse(line) as Record<string, unknown>))
        } else {
          waiters.push(check)
        }
      }
      check()
    })
  return { child, write: (text) => child.stdin.write(text), read, lines: () => lines, stderr: () => stderr, exited }
}

export const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

export const requestLine = (id: number | string, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }) + "\n"
