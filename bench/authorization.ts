/**
 * The cost of an authorization policy on the hot path: full `tools/list` listings (1,000 tools, 10
 * pages) with an allow-all policy and without, in the same process and run, through the in-memory
 * client (so only the runtime is measured). Per-principal views are cached, so the worst case is a
 * new principal on every listing; both cases are reported as ratios to the run without a policy.
 *
 *   npx node bench/authorization.ts
 */
import { Authorization, McpServer, Principal, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema } from "effect"

const tools = Array.from({ length: 1000 }, (_, index) =>
  Tool.make(`tool_${index}`, { description: `Tool number ${index}`, input: Schema.Struct({ n: Schema.Finite }) }, () => Effect.succeed("ok")))

const server = McpServer.make({ name: "bench-authz", version: "1" }).add(...tools)

/** Allows everything after looking at the principal: the policy's own cost, same output as none. */
const policy = Authorization.layer({
  authorize: (_phase, component, { principal }) =>
    principal.claims["role"] !== "banned" || component.name === "" ? Authorization.allow : Authorization.refuse(-32001, "Forbidden")
})

const fixed = Array.from({ length: 16 }, (_, index) => ({ id: `user-${index}`, claims: { role: "user" } }))
const principalOf = (fresh: boolean, count: number) =>
  fresh ? { id: `fresh-${count}`, claims: { role: "user" } } : fixed[count % fixed.length]!

const measure = <E>(label: string, layer: Layer.Layer<McpTestClient, E>, durationMs: number, fresh = false) =>
  Effect.gen(function*() {
    const client = yield* McpTestClient
    let count = 0
    const deadline = Date.now() + durationMs
    while (Date.now() < deadline && count < 1_000_000) {
      yield* client.list("tools").pipe(Effect.provideService(Principal.Principal, principalOf(fresh, count)))
      count++
    }
    const perSecond = count / (durationMs / 1000)
    yield* Effect.sync(() => process.stderr.write(`${label}: ${perSecond.toFixed(0)} full listings/s\n`))
    return perSecond
  }).pipe(Effect.provide(layer))

/** Runs both measurements; returns listings per second and the ratio with/without. */
export const run = (durationMs = 3000) =>
  Effect.gen(function*() {
    const base = McpTestClient.layer.pipe(Layer.provide(server.layer))
    const guarded = McpTestClient.layer.pipe(Layer.provide(server.layer), Layer.provide(policy))
    yield* measure("warm-up", base, 500)
    const without = yield* measure("without policy", base, durationMs)
    const cached = yield* measure("with policy, 16 principals (views cached)", guarded, durationMs)
    const fresh = yield* measure("with policy, a new principal every listing (worst case)", guarded, durationMs, true)
    return { without, cached, fresh, cachedRatio: cached / without, freshRatio: fresh / without }
  })

if (import.meta.main) {
  const result = await Effect.runPromise(run())
  process.stdout.write(`${JSON.stringify(result)}\n`)
}
