/**
 * The everything server over HTTP for the soak, on a free port. Started with `--expose-gc`, a
 * `SIGUSR2` collects garbage and writes `rss <MiB> heap <MiB>` on stdout: what the server still holds, so the
 * soak's slope follows retained memory rather than the collector's sawtooth.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import { serveHttp } from "../../examples/everything/http.ts"

const collect = (globalThis as { readonly gc?: () => void }).gc
process.on("SIGUSR2", () => {
  collect?.()
  const memory = process.memoryUsage()
  process.stdout.write(`rss ${(memory.rss / 1024 / 1024).toFixed(1)} heap ${(memory.heapUsed / 1024 / 1024).toFixed(1)}\n`)
})

serveHttp(0).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
