/**
 * Serves the consumer app: `--stdio`, or `--http` on 127.0.0.1 with a free port, logging the URL
 * on stderr once it is bound.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { ServerLayer } from "./server.js"

if (process.argv.includes("--stdio")) {
  StdioTransport.run().pipe(
    Effect.provide(ServerLayer),
    Effect.provide(NodeStdio.layer),
    Effect.provide(StdioTransport.stderrLogger),
    NodeRuntime.runMain
  )
} else {
  const logUrl = Layer.effectDiscard(
    HttpServer.addressFormattedWith((url) => Effect.sync(() => process.stderr.write(`listening on ${url}/mcp\n`)))
  )
  Layer.launch(logUrl.pipe(Layer.provideMerge(NodeServe.layer({ port: 0 })), Layer.provide(ServerLayer))).pipe(
    Effect.provide(StdioTransport.stderrLogger),
    NodeRuntime.runMain
  )
}
