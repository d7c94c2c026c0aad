/**
 * The lifetimes test server over stdio:
 *
 *   node test/support/ListenServerMain.ts [--max-subscriptions N] [--queue N] [--overflow close|drop-oldest] [--write-timeout MS]
 *
 * On its way out it writes `subscribers at exit: N` to stderr, after the transport's work has been
 * cleaned up, so a test can see that nothing was left registered.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import { listenServer } from "./ListenServer.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const index = args.indexOf(name)
  return index >= 0 ? args[index + 1] : undefined
}
const number = (name: string): number | undefined => {
  const raw = option(name)
  return raw === undefined ? undefined : Number(raw)
}

const overflow = option("--overflow")
const queue = number("--queue")
const maxSubscriptions = number("--max-subscriptions")
const writeTimeout = number("--write-timeout")
const server = listenServer({
  ...(queue === undefined ? {} : { queue }),
  ...(overflow === "close" || overflow === "drop-oldest" ? { overflow } : {})
})

StdioTransport.run({
  ...(maxSubscriptions === undefined ? {} : { maxSubscriptions }),
  ...(writeTimeout === undefined ? {} : { writeTimeout })
}).pipe(
  Effect.ensuring(Effect.sync(() => process.stderr.write(`subscribers at exit: ${server.hub.size()}\n`))),
  Effect.provide(server.layer),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
