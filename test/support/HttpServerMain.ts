/**
 * The lifetimes test server over Streamable HTTP, in a child process of its own so that a test
 * can measure its memory:
 *
 *   node test/support/HttpServerMain.ts '{"serve": {…NodeServe options}, "queue": 64, "queueBytes": 65536}'
 *
 * It binds a free loopback port and writes `listening <port>` on stdout once it serves. Started
 * with `--expose-gc`, a `SIGUSR2` collects garbage and writes `held <MiB>` (the JavaScript heap in
 * use plus the memory of Buffers and other external objects) and `rss <MiB>` on stdout: the memory
 * the server still holds, without what a collection would free.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServe from "@snodo/http/NodeServe"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { listenServer, type ListenServerOptions } from "./ListenServer.ts"

interface Config extends ListenServerOptions {
  readonly serve?: NodeServe.ServeOptions
}

const config = JSON.parse(process.argv[2] ?? "{}") as Config
const collect = (globalThis as { readonly gc?: () => void }).gc
process.on("SIGUSR2", () => {
  collect?.()
  const usage = process.memoryUsage()
  process.stdout.write(`held ${((usage.heapUsed + usage.external) / 1024 / 1024).toFixed(1)}\nrss ${(usage.rss / 1024 / 1024).toFixed(1)}\n`)
})
const server = listenServer(config)

Layer.launch(
  Layer.effectDiscard(
    Effect.flatMap(Effect.service(HttpServer.HttpServer), (http) =>
      Effect.sync(() => {
        const address = http.address
        process.stdout.write(`listening ${address._tag === "UnixPathAddress" ? 0 : address.port}\n`)
      }))
  ).pipe(Layer.provideMerge(NodeServe.layer({ ...config.serve, port: 0 })), Layer.provide(server.layer))
).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
