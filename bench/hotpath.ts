/**
 * The in-process hot path: `ServerRuntime.handle` for one `tools/call echo` of the everything
 * server, with no transport, timed over many sequential calls. A diagnostic for profiling our own
 * pipeline (decode, admission, routing, validation, the handler, result shaping, encoding) apart
 * from sockets and pipes.
 *
 *   npx node bench/hotpath.ts [calls] [--traced] [--metered] [--in-fiber]
 *
 * The request context names the principal, as the HTTP transport's does, so a call answered
 * without suspending comes back as an `Exit` and is taken as it is (a transport writes it without
 * a fiber); `--in-fiber` leaves the principal out, so that every call runs in a fiber as before.
 * `--traced` installs a tracing backend that makes Effect's own spans and drops them (the cost of
 * our span per request, without an exporter's); `--metered` turns the server's metrics on.
 */
import * as Observability from "@snodo/core/Observability"
import { Effect, Exit, Layer, Tracer } from "effect"
import { anonymous } from "@snodo/core/Principal"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { ServerLayer } from "../examples/everything/server.ts"
import { echoBody } from "./wire.ts"

const flags = process.argv.slice(2)
const calls = Number(flags.find((flag) => !flag.startsWith("--")) ?? 200_000)
const traced = flags.includes("--traced")
const metered = flags.includes("--metered")
const inFiber = flags.includes("--in-fiber")
const dropping = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })
const Observed = Layer.mergeAll(
  traced ? Layer.succeed(Tracer.Tracer, dropping) : Layer.empty,
  Observability.layer({ metrics: metered })
)
const text = echoBody()

const program = Effect.gen(function*() {
  const runtime = yield* ServerRuntime
  const context = inFiber ? { transport: "http" as const, sink: undefined } : { transport: "http" as const, sink: undefined, principal: anonymous }
  const once = Effect.suspend(() => {
    const message = Envelope.decode(text)
    if (message._tag !== "Request") return Effect.die(new Error(`not a request: ${message._tag}`))
    return runtime.handle(message, context)
  })
  /** One call as a transport makes it: an `Exit` taken as it is, anything else run in a fiber. */
  const direct = (): Effect.Effect<unknown> => {
    const message = Envelope.decode(text)
    if (message._tag !== "Request") return Effect.die(new Error(`not a request: ${message._tag}`))
    const handled = runtime.handle(message, context)
    return Exit.isExit(handled) ? Effect.void : handled
  }
  const first = yield* once
  if (first._tag !== "Result" || !first.frame.includes("hello, bench")) return yield* Effect.die(new Error(first.frame))
  for (let round = 0; round < 3; round++) {
    const started = performance.now()
    const cpu = process.cpuUsage()
    for (let i = 0; i < calls; i++) {
      const next = direct()
      if (next !== Effect.void) yield* next
    }
    const micros = ((performance.now() - started) * 1000) / calls
    const used = process.cpuUsage(cpu)
    const cpuMicros = (used.user + used.system) / calls
    process.stdout.write(`round ${round + 1}: ${micros.toFixed(2)} µs per tools/call (decode + handle + encode), ` +
      `${cpuMicros.toFixed(2)} µs CPU (GC threads included)\n`)
  }
})

Effect.runPromise(Effect.provide(Effect.scoped(program), ServerLayer.pipe(Layer.provide(Observed)))).then(() => process.exit(0), (error) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
