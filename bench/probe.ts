/**
 * Start-up and correctness probes: the time from spawning a peer to its first correct answer, over
 * HTTP (polling with real requests) or stdio (one line written at spawn).
 */
import net from "node:net"
import { type Child, sleep, start } from "./children.ts"
import { checkEcho, echoBody, frameOf } from "./wire.ts"

export interface Posted {
  readonly status: number
  readonly contentType: string
  readonly text: string
}

/** One POST on a fresh connection. */
export const post = async (url: string, body: string, headers: Readonly<Record<string, string>>, timeoutMs = 5000): Promise<Posted> => {
  const response = await fetch(url, { method: "POST", body, headers, signal: AbortSignal.timeout(timeoutMs) })
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() }
}

/** `undefined` when the POST got a 2xx whose frame passes `check`, else what went wrong. */
export const verify = async (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  check: (frame: unknown) => string | undefined
): Promise<string | undefined> => {
  try {
    const posted = await post(url, body, headers)
    if (posted.status < 200 || posted.status > 299) return `HTTP ${posted.status}: ${posted.text.slice(0, 300)}`
    return check(frameOf(posted.contentType, posted.text))
  } catch (error) {
    return `request failed: ${error instanceof Error ? error.message : String(error)}`
  }
}

/** A probe's bound (default 30 s) and the environment variables the peer starts with. */
export interface LaunchOptions {
  readonly timeoutMs?: number
  readonly env?: Readonly<Record<string, string>>
  /** The working directory (default: the checkout). */
  readonly cwd?: string
}

/** What a stdio probe writes at spawn, and the check its first answer must pass (default: an echo call). */
export interface StdioProbe {
  readonly line: string
  readonly check: (frame: unknown) => string | undefined
}

const launchOf = (options: LaunchOptions) => ({
  ...(options.env === undefined ? {} : { env: options.env }),
  ...(options.cwd === undefined ? {} : { cwd: options.cwd })
})

export interface Started {
  readonly child: Child
  /** Milliseconds from spawn to the first correct answer. */
  readonly startupMs: number
}

/**
 * Whether something accepts TCP connections at the URL's host and port now (the connection is
 * closed at once). Far cheaper than a refused `fetch`, so it can be tried every millisecond.
 */
const accepting = (url: URL): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => {
      socket.destroy()
      resolve(false)
    })
  })

/**
 * The first answer to a POST sent once something accepts connections at the URL's port: a TCP
 * connect is tried every `intervalMs` until one is accepted (a refused connect costs the machine
 * ~0.1 ms, a refused `fetch` ~1 ms), then the request is posted, and posted again after
 * `intervalMs` if it fails. Rejects once `stopped` names a reason (the server exited), or after
 * `timeoutMs`.
 */
export const firstAnswer = async (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: {
    readonly intervalMs: number
    readonly timeoutMs: number
    readonly postTimeoutMs: number
    readonly stopped: () => string | undefined
  }
): Promise<Posted> => {
  const t0 = performance.now()
  const target = new URL(url)
  while (performance.now() - t0 < options.timeoutMs) {
    const reason = options.stopped()
    if (reason !== undefined) throw new Error(reason)
    if (await accepting(target)) {
      try {
        return await post(url, body, headers, options.postTimeoutMs)
      } catch {
        // accepted, then failed: try again
      }
    }
    await sleep(options.intervalMs)
  }
  throw new Error(`no answer within ${options.timeoutMs} ms`)
}

/**
 * Spawns an HTTP peer and waits until it answers a request correctly (at most `timeoutMs`), with
 * {@link firstAnswer} trying every millisecond (a `fetch` every 5 ms, as before, timed a start up
 * to ~6 ms late). Fails with the child's stderr when it exits or never answers.
 */
export const startHttp = async (
  script: string,
  args: ReadonlyArray<string>,
  url: string,
  probe: { readonly body: string; readonly headers: Readonly<Record<string, string>>; readonly check: (frame: unknown) => string | undefined },
  options: LaunchOptions = {}
): Promise<Started> => {
  const timeoutMs = options.timeoutMs ?? 30_000
  const t0 = performance.now()
  const child = start(script, args, { stdin: false, stdout: false, ...launchOf(options) })
  let exited: number | string | undefined
  void child.exited.then((code) => {
    exited = code
  })
  let posted: Posted
  try {
    posted = await firstAnswer(url, probe.body, probe.headers, {
      intervalMs: 1,
      timeoutMs,
      postTimeoutMs: 2000,
      stopped: () => exited === undefined ? undefined : `exited with ${exited} before answering`
    })
  } catch (error) {
    await child.stop()
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${child.stderrTail().trim().slice(-600)}`, { cause: error })
  }
  const startupMs = performance.now() - t0
  let problem: string | undefined
  if (posted.status < 200 || posted.status > 299) problem = `HTTP ${posted.status}: ${posted.text.slice(0, 300)}`
  else {
    try {
      problem = probe.check(frameOf(posted.contentType, posted.text))
    } catch (error) {
      problem = `unparsable answer: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  if (problem === undefined) return { child, startupMs }
  // Answered, but wrongly: a peer that errors is reported, not measured.
  await child.stop()
  throw new Error(problem)
}

/**
 * Spawns a stdio peer, writes one request at once (an echo call unless `probe` says otherwise), and
 * times the first correct answer line.
 * Lines on stdout that are not JSON are a protocol violation: they are skipped for the timing and
 * returned in `noise`, so the caller reports them.
 */
export const startStdio = (
  script: string,
  args: ReadonlyArray<string>,
  options: LaunchOptions = {},
  probe: StdioProbe = { line: echoBody(), check: (frame) => checkEcho(frame) }
): Promise<Started & { readonly noise: ReadonlyArray<string> }> =>
  new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000
    const t0 = performance.now()
    const child = start(script, args, { stdin: true, stdout: true, ...launchOf(options) })
    const noise: Array<string> = []
    let buffered = ""
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void child.stop()
      reject(error)
    }
    const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms: ${child.stderrTail().trim().slice(-600)}`)), timeoutMs)
    void child.exited.then((code) => fail(new Error(`exited with ${code} before answering: ${child.stderrTail().trim().slice(-600)}`)))
    child.process.stdout?.setEncoding("utf8")
    child.process.stdout?.on("data", (chunk: string) => {
      buffered += chunk
      for (let newline = buffered.indexOf("\n"); newline >= 0 && !settled; newline = buffered.indexOf("\n")) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        let frame: unknown
        try {
          frame = JSON.parse(line) as unknown
        } catch {
          if (noise.length < 5) noise.push(line.slice(0, 200))
          continue
        }
        const startupMs = performance.now() - t0
        const problem = probe.check(frame)
        if (problem !== undefined) return fail(new Error(problem))
        settled = true
        clearTimeout(timer)
        child.process.stdout?.removeAllListeners("data")
        child.process.stdout?.resume()
        resolve({ child, startupMs, noise })
      }
    })
    child.process.stdin?.write(`${probe.line}\n`)
  })
