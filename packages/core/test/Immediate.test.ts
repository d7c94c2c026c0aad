import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Schema } from "effect"
import { Authorization, McpServer, Principal, Tool } from "@snodo/core"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type { Outcome, RequestContext } from "@snodo/core/transport/ServerRuntime"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import * as Immediate from "@snodo/protocol/peer/Immediate"

// `ServerRuntime.handle` with the principal in the request context runs its steps at once: a
// request that completes without suspending comes back as an `Exit` (a transport answers it
// without a fiber), the same outcome the fiber would have given; anything else is an Effect.

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

const call = (id: number, name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Envelope.Request => ({
  _tag: "Request",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: meta, ...extra }
})

const alice = Principal.Principal.of({ id: "alice", claims: {} })
const direct: RequestContext = { transport: "http", sink: undefined, principal: alice }
const inFiber: RequestContext = { transport: "http", sink: undefined }

class Overflow extends Schema.TaggedError<Overflow>()("Overflow", { at: Schema.Number }) {}

const gate = Deferred.makeUnsafe<void>()
let thrown = 0

const tools = [
  Tool.make("echo", { input: Schema.Struct({ text: Schema.String }), output: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
    Effect.succeed({ text })),
  Tool.make("fails", { input: Schema.Struct({}), failure: Overflow }, () => Effect.fail(new Overflow({ at: 1 }))),
  Tool.make("gen", { input: Schema.Struct({}) }, () =>
    Effect.gen(function*() {
      const request = yield* Effect.succeed("gen")
      return { request }
    })),
  Tool.make("waits", { input: Schema.Struct({}), concurrency: 1, queue: 4 }, () => Effect.as(Deferred.await(gate), "waited")),
  Tool.make("throws", { input: Schema.Struct({}) }, () => {
    thrown++
    throw new Error("thrown while building the effect")
  }),
  Tool.make("limited", { input: Schema.Struct({}), rateLimit: { limit: 1, window: "1 minute" } }, () => Effect.succeed("once")),
  Tool.make("secret", { input: Schema.Struct({}) }, () => Effect.succeed("hidden"))
]

const policy = Authorization.layer({
  authorize: (_phase, component) => component.name === "secret" ? Authorization.refuse(-32001, "Forbidden") : Authorization.allow
})

const runtimeOf = Effect.map(
  Layer.build(McpServer.make({ name: "immediate", version: "1" }).add(...tools).layer.pipe(Layer.provide(policy))),
  (context) => Context.get(context, ServerRuntime)
)

/** The outcome of `handle`, run in a fiber as a transport without the fast path runs it. */
const inFiberOutcome = (runtime: ServerRuntime["Service"], request: Envelope.Request) =>
  Effect.provideService(runtime.handle(request, inFiber), Principal.Principal, alice)

const done = (effect: Effect.Effect<Outcome>): Outcome | undefined =>
  Exit.isExit(effect) && Exit.isSuccess(effect) ? (effect as Exit.Success<Outcome>).value : undefined

describe("requests answered at once", () => {
  it.effect("a handler that returns a completed effect is an Exit, with the outcome its fiber would give", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      for (const request of [call(1, "echo", { text: "hi" }), call(2, "fails"), call(3, "echo", { text: 3 }), call(4, "nope"), call(5, "secret")]) {
        const outcome = done(runtime.handle(request, direct))
        expect(outcome, String(request.params["name"])).toBeDefined()
        expect(outcome).toEqual(yield* inFiberOutcome(runtime, request))
      }
      const listed = done(runtime.handle({ _tag: "Request", id: 6, method: "tools/list", params: { _meta: meta } }, direct))
      expect(listed?._tag).toBe("Result")
      expect(done(runtime.handle({ _tag: "Request", id: 7, method: "no/such", params: { _meta: meta } }, direct))).toMatchObject({ code: -32601 })
    }).pipe(Effect.scoped))

  it.effect("a handler that runs an Effect goes through the fiber, with the same outcome", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const request = call(1, "gen")
      const handled = runtime.handle(request, direct)
      expect(Exit.isExit(handled)).toBe(false)
      const outcome = yield* Effect.provideService(handled, Principal.Principal, alice)
      expect(outcome).toEqual(yield* inFiberOutcome(runtime, request))
      expect(outcome.frame).toContain('"request\\":\\"gen\\"')
    }).pipe(Effect.scoped))

  it.effect("a handler that throws while building its effect is a defect: -32603, logged, never thrown at the transport", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const handled = runtime.handle(call(1, "throws"), direct)
      const outcome = yield* handled
      expect(outcome).toMatchObject({ _tag: "Error", code: -32603, exception: true })
      expect(thrown).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("a component whose places are taken queues the request, as the executor does", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const first = yield* Effect.forkChild(Effect.provideService(runtime.handle(call(1, "waits"), direct), Principal.Principal, alice))
      yield* Effect.yieldNow
      expect(Exit.isExit(runtime.handle(call(2, "waits"), direct))).toBe(false)
      yield* Deferred.succeed(gate, undefined)
      expect((yield* Fiber.join(first))._tag).toBe("Result")
    }).pipe(Effect.scoped))

  it.effect("a rate-limited component is decided in the fiber (its window reads the fiber's clock)", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const once = runtime.handle(call(1, "limited"), direct)
      expect(Exit.isExit(once)).toBe(false)
      expect((yield* once)._tag).toBe("Result")
      expect(yield* runtime.handle(call(2, "limited"), direct)).toMatchObject({ _tag: "Error", refusal: { reason: "rate-limited" } })
    }).pipe(Effect.scoped))

  it.effect("an MRTR retry (requestState) is verified in the fiber", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const retry = runtime.handle(call(1, "echo", { text: "hi" }, { requestState: "not-a-state" }), direct)
      expect(Exit.isExit(retry)).toBe(false)
      expect(yield* retry).toMatchObject({ _tag: "Error", code: -32602 })
    }).pipe(Effect.scoped))
})

describe("Immediate.isDone", () => {
  it("is Exit.isExit: every kind of Exit, and nothing else", () => {
    const exits = [Exit.void, Exit.succeed(1), Exit.fail("e"), Exit.die("d"), Exit.interrupt(1), Effect.succeed(2), Effect.fail("f")]
    for (const exit of exits) expect([Immediate.isDone(exit), Exit.isExit(exit)]).toStrictEqual([true, true])
    const pending = [Effect.sync(() => 1), Effect.never, Effect.map(Effect.succeed(1), (n) => n + 1), Effect.suspend(() => Effect.void)]
    for (const effect of pending) expect([Immediate.isDone(effect), Exit.isExit(effect)]).toStrictEqual([false, false])
    // An Exit made with other prototypes (another copy of Effect) is still one.
    const foreign: Effect.Effect<unknown> = Object.assign(Object.create({ "~effect/Exit": "~effect/Exit" }) as Effect.Effect<unknown>, {
      _tag: "Success"
    })
    expect(Exit.isExit(foreign)).toBe(true)
    expect(Immediate.isDone(foreign)).toBe(true)
  })
})
