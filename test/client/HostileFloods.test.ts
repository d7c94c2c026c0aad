/**
 * Issue 38, the floods (C1, C2, C3, C4, C8's questions, C9): a hostile server written for the test
 * floods a client that runs alone in a child process (support/FloodClient.ts), so that its memory is
 * its own. Each row asserts the bound (what the client holds, its live set after a full GC, grows
 * ≤ 64 MiB over idle; RSS is reported, and past 600 MiB the run stops), the typed error and its
 * message, and that a well-behaved server (the everything server) still works from the same
 * process afterwards; where the hostile connection stays open, the flood client also pings it.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { sourceCondition } from "../support/Sources.ts"
import * as HostileHttpServer from "./support/HostileHttpServer.ts"

const runner = new URL("./support/FloodClient.ts", import.meta.url).pathname

interface Report {
  readonly runaway: boolean
  readonly growthMiB: number
  readonly liveGrowthMiB: number
  readonly elapsedMs: number
  readonly error: { readonly _tag: string; readonly reason?: string; readonly message: string } | null
  readonly detail?: Record<string, unknown>
  readonly wellBehaved: string
}

/** Runs the flood client on one scenario; its report. */
const flood = (scenario: string, url = ""): Effect.Effect<Report> =>
  Effect.promise(() =>
    new Promise<Report>((resolve, reject) => {
      const child = spawn(process.execPath, [sourceCondition, "--expose-gc", runner, scenario, url], { stdio: ["ignore", "pipe", "inherit"] })
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => out += chunk.toString("utf8"))
      child.once("close", () => {
        const line = out.trim().split("\n").pop() ?? ""
        try {
          resolve(JSON.parse(line) as Report)
        } catch {
          reject(new Error(`the flood client printed no report: ${out}`))
        }
      })
    })
  )

/** The same HTTP flood, against a hostile server on a loopback port of this process. */
const floodHttp = (scenario: HostileHttpServer.Scenario, runnerScenario: string = scenario) =>
  Effect.acquireUseRelease(
    Effect.promise(() => HostileHttpServer.start(scenario, 500_000)),
    (server) => flood(runnerScenario, server.url),
    (server) => Effect.promise(server.close)
  )

const wellBehaved = "This is a simple text response for testing."

/** What every row asserts: no runaway, RSS within the bound, the everything server still answering. */
const bounded = (report: Report) => {
  expect(report.runaway).toBe(false)
  expect(report.liveGrowthMiB, `RSS grew ${report.growthMiB} MiB`).toBeLessThanOrEqual(64)
  expect(report.wellBehaved).toBe(wellBehaved)
}

describe("the client under a hostile server's flood (issue 38)", () => {
  it.live("C1: invalid lines from a server that never reads: ended after maxInvalidFrames, at once", () =>
    Effect.gen(function*() {
      const report = yield* flood("invalid-flood")
      bounded(report)
      expect(report.error?._tag).toBe("TransportError")
      expect(report.error?.reason).toBe("Protocol")
      expect(report.error?.message).toContain("(maxInvalidFrames 16)")
      expect(report.error?.message).toContain("HostileStdioServer.mjs invalid-flood")
      expect(report.error?.message).toContain("the first: not json 0")
      // the fault is visible from the first line; the time includes spawning the server (a cold Node
      // start, over a second on a loaded 2-core machine), so the bound leaves it room: the old client
      // read on until its 60 s stall check
      expect(report.elapsedMs).toBeLessThan(5000)
    }), 120_000)

  it.live("C2: 200,000 elicitation/create with a slow handler: at most 64 run, the rest refused busy", () =>
    Effect.gen(function*() {
      const report = yield* flood("legacy-elicit-flood")
      bounded(report)
      expect(report.error).toBeNull()
      expect(report.detail?.["mostAtOnce"]).toBeLessThanOrEqual(64)
      // the hostile server received busy refusals, and answered a ping and a call afterwards
      expect(String(report.detail?.["stats"])).toMatch(/errors=[1-9]/)
    }), 120_000)

  it.live("C3: 500,000 listen changes over stdio, read at 1/ms: the stream's buffer drops the oldest", () =>
    Effect.gen(function*() {
      const report = yield* flood("listen-flood-stdio")
      bounded(report)
      expect(report.error).toBeNull()
      expect(report.detail?.["read"]).toBeGreaterThanOrEqual(64)
    }), 120_000)

  it.live("C3: 500,000 listen changes over HTTP, read at 1/ms", () =>
    Effect.gen(function*() {
      const report = yield* floodHttp("listen-flood", "listen-flood-http")
      bounded(report)
      expect(report.error).toBeNull()
      expect(report.detail?.["read"]).toBeGreaterThanOrEqual(64)
    }), 120_000)

  it.live.each([
    ["big-json", "body"],
    ["sse-line", "SSE line"],
    ["sse-event", "SSE event"]
  ] as const)("C4: a 300 MiB %s: the call fails with TooLarge past maxResponseBytes, the connection goes on", ([scenario, what]) =>
    Effect.gen(function*() {
      const report = yield* floodHttp(scenario)
      bounded(report)
      expect(report.error?._tag).toBe("TransportError")
      expect(report.error?.reason).toBe("TooLarge")
      expect(report.error?.message).toContain(`The server's ${what} answering tools/call is larger than 16777216 bytes (maxResponseBytes)`)
      expect(report.error?.message).toContain("http://127.0.0.1:")
    }), 120_000)

  it.live("C8: 50,000 questions in one round: refused before any handler runs (maxInputRequests)", () =>
    Effect.gen(function*() {
      const report = yield* flood("questions")
      bounded(report)
      expect(report.error?._tag).toBe("InvalidResult")
      expect(report.error?.message).toBe("tools/call asked 50000 questions in one round; the client answers at most 32 (maxInputRequests)")
      expect(report.detail?.["handlerCalls"]).toBe(0)
    }), 120_000)

  it.live("C9: a 400 MiB line on the portable StdioClientTransport.layer: ended at maxLineBytes", () =>
    Effect.gen(function*() {
      const report = yield* flood("long-line-portable")
      bounded(report)
      expect(report.error?._tag).toBe("TransportError")
      expect(report.error?.message).toContain("The server wrote a line longer than 16777216 bytes (maxLineBytes)")
      expect(report.error?.message).toContain("HostileStdioServer.mjs long-line")
    }), 120_000)
})
