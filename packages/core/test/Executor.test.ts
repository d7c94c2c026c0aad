/**
 * The executor's bulkheads without a transport: per-component places, the fair queue across
 * principals, longest-queue drop, rate windows and timeouts. (Through real listeners:
 * packages/http/test/Bulkheads.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as McpServer from "@snodo/core/McpServer"
import { TestClock } from "effect/testing"
import * as ComponentOptions from "@snodo/core/ComponentOptions"
import * as Content from "@snodo/core/Content"
import * as Prompt from "@snodo/core/Prompt"
import * as Resource from "@snodo/core/Resource"
import * as Tool from "@snodo/core/Tool"
import * as Executor from "@snodo/core/Executor"
import * as RateWindow from "../src/runtime/internal/RateWindow.ts"
import { Schema } from "effect"

const component = (key: string, options: ComponentOptions.ComponentOptions = {}) => ({ key, limits: ComponentOptions.resolve(options) })

describe("Executor bulkheads", () => {
  it.effect("one component's full bulkhead does not hold another's requests", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const slow = component("tool:slow", { concurrency: 2, queue: 10 })
      const fast = component("tool:fast")
      const gate = yield* Deferred.make<void>()
      const fibers = yield* Effect.forEach(Array.from({ length: 6 }), () => Effect.forkChild(executor.run(Deferred.await(gate), { component: slow })))
      yield* Effect.yieldNow
      expect([executor.bulkhead("tool:slow")?.running(), executor.bulkhead("tool:slow")?.waiting()]).toEqual([2, 4])
      expect(yield* executor.run(Effect.succeed("fast"), { component: fast })).toBe("fast")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(fibers)
      expect(executor.active()).toBe(0)
    }))

  it.effect("a second principal's first request starts before the first principal's backlog", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const gate = component("tool:gate", { concurrency: 1 })
      const started: Array<string> = []
      const release = new Map<string, Deferred.Deferred<void>>()
      const call = (principal: string, n: number) =>
        Effect.gen(function*() {
          const done = yield* Deferred.make<void>()
          release.set(`${principal}${n}`, done)
          return yield* Effect.forkChild(executor.run(Effect.andThen(Effect.sync(() => void started.push(`${principal}${n}`)), Deferred.await(done)), { component: gate, principal }))
        })
      const fibers = [yield* call("a", 1), yield* call("a", 2), yield* call("a", 3), yield* call("a", 4), yield* call("b", 1)]
      yield* Effect.yieldNow
      expect(started).toEqual(["a1"])
      for (const key of ["a1", "b1", "a2", "a3"]) {
        yield* Deferred.succeed(release.get(key)!, undefined)
        yield* Effect.yieldNow
      }
      expect(started).toEqual(["a1", "b1", "a2", "a3", "a4"])
      yield* Deferred.succeed(release.get("a4")!, undefined)
      yield* Fiber.joinAll(fibers)
    }))

  it.effect("two backlogged principals alternate", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const gate = component("tool:alternate", { concurrency: 1 })
      const started: Array<string> = []
      const blocker = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(executor.run(Deferred.await(blocker), { component: gate, principal: "x" }))
      const fibers = []
      for (const principal of ["a", "a", "a", "b", "b", "b"]) {
        fibers.push(yield* Effect.forkChild(executor.run(Effect.sync(() => void started.push(principal)), { component: gate, principal })))
      }
      yield* Effect.yieldNow
      yield* Deferred.succeed(blocker, undefined)
      yield* Fiber.joinAll([first, ...fibers])
      expect(started).toEqual(["a", "b", "a", "b", "a", "b"])
    }))

  it.effect("a full queue: a newcomer displaces the newest waiter of the principal holding the most; that principal is refused itself", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const gate = component("tool:full", { concurrency: 1, queue: 3 })
      const blocker = yield* Deferred.make<void>()
      const run = (principal: string) => executor.run(Deferred.await(blocker), { component: gate, principal })
      const running = yield* Effect.forkChild(run("a"))
      const waiting = yield* Effect.forEach([0, 1, 2], () => Effect.forkChild(Effect.exit(run("a"))))
      yield* Effect.yieldNow
      const refused = yield* Effect.flip(run("a"))
      expect(refused).toMatchObject({ _tag: "ServerBusy", data: { retryable: true, limit: 3, component: "tool:full" } })
      const newcomer = yield* Effect.forkChild(run("b"))
      yield* Effect.yieldNow
      const displaced = yield* Fiber.join(waiting[2]!)
      expect(displaced._tag).toBe("Failure")
      expect(executor.bulkhead("tool:full")?.waiting()).toBe(3)
      yield* Deferred.succeed(blocker, undefined)
      yield* Fiber.joinAll([running, newcomer, waiting[0]!, waiting[1]!])
      expect(executor.active()).toBe(0)
    }))

  it.effect("a place taken at once is given back when its handler fails, dies or is interrupted", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const one = component("tool:one", { concurrency: 1, queue: 0 })
      const bulkhead = () => executor.bulkhead("tool:one")
      expect(yield* Effect.flip(executor.run(Effect.fail("failed"), { component: one }))).toBe("failed")
      expect([bulkhead()?.running(), executor.active()]).toEqual([0, 0])
      yield* Effect.exit(executor.run(Effect.die("died"), { component: one }))
      expect([bulkhead()?.running(), executor.active()]).toEqual([0, 0])
      const running = yield* Effect.forkChild(executor.run(Effect.never, { component: one }))
      yield* Effect.yieldNow
      expect([bulkhead()?.running(), executor.active()]).toEqual([1, 1])
      yield* Fiber.interrupt(running)
      expect([bulkhead()?.running(), executor.active()]).toEqual([0, 0])
      expect(yield* executor.run(Effect.succeed("next"), { component: one })).toBe("next")
    }))

  it.effect("an interrupted waiter leaves the queue; the global bound still refuses past running + queued", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe({ maxRunning: 1, maxQueued: 1 })
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(executor.run(Deferred.await(gate)))
      const second = yield* Effect.forkChild(executor.run(Deferred.await(gate)))
      yield* Effect.yieldNow
      const third = yield* Effect.flip(executor.run(Effect.void))
      expect(third).toMatchObject({ _tag: "ServerBusy", data: { limit: 1 } })
      yield* Fiber.interrupt(second)
      expect(executor.active()).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      expect(executor.active()).toBe(0)
    }))

  it.effect("a timeout interrupts the handler and answers -32603 with the timeout in data", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      let interrupted = false
      const fiber = yield* Effect.forkChild(Effect.flip(executor.run(
        Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))),
        { component: component("tool:slow", { timeout: "100 millis" }) }
      )))
      yield* TestClock.adjust("150 millis")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ code: -32603, data: { reason: "timeout", timeoutMs: 100, component: "tool:slow" } })
      expect(interrupted).toBe(true)
    }))

  it.effect("a rate limit admits `limit` calls per principal and window, then RateLimited until the window ends", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe()
      const limited = component("tool:limited", { rateLimit: { limit: 2, window: "1 second" } })
      const call = (principal: string) => Effect.exit(executor.run(Effect.succeed(principal), { component: limited, principal }))
      yield* TestClock.adjust("200 millis")
      expect((yield* call("a"))._tag).toBe("Success")
      expect((yield* call("a"))._tag).toBe("Success")
      const refused = yield* Effect.flip(executor.run(Effect.void, { component: limited, principal: "a" }))
      expect(refused).toMatchObject({ _tag: "RateLimited", data: { limit: 2, windowMs: 1000, retryAfterMs: 800, component: "tool:limited" } })
      expect((yield* call("b"))._tag).toBe("Success")
      yield* TestClock.adjust("800 millis")
      expect((yield* call("a"))._tag).toBe("Success")
    }))
})

describe("RateWindow", () => {
  it("never holds more than maxKeys keys: later keys share one count", () => {
    const window = RateWindow.make({ limit: 1, windowMillis: 1000, maxKeys: 3 })
    for (const key of ["a", "b", "c"]) expect(window.admit(key, 0)).toBeUndefined()
    expect(window.admit("d", 0)).toBeUndefined()
    expect(window.admit("e", 0)).toBe(1000)
    for (let i = 0; i < 1000; i++) window.admit(`k${i}`, 10)
    expect(window.size()).toBe(4)
    expect(window.admit("e", 1000)).toBeUndefined()
    expect(window.size()).toBe(1)
  })
})

describe("component options", () => {
  it("are options of the definitions, resolved once, kept off the wire description", () => {
    const tool = Tool.make("t", { input: Schema.Struct({}), description: "d", concurrency: 4, timeout: "2 seconds", rateLimit: { limit: 10, window: "1 minute" } }, () => Effect.void)
    expect(tool.limits).toEqual({ concurrency: 4, queue: 256, timeoutMillis: 2000, rateLimit: { limit: 10, windowMillis: 60_000, maxKeys: 10_000 } })
    expect(tool.description).toEqual({ description: "d" })
    const readme = Resource.make({ uri: "file:///r", name: "r", queue: 8 }, () => Effect.succeed(Content.textContents("file:///r", "")))
    expect(readme.limits.queue).toBe(8)
    expect(readme.description).toEqual({ uri: "file:///r", name: "r" })
    const hello = Prompt.make("hello", { description: "hi", timeout: "1 second" }, () => Effect.succeed([]))
    expect([hello.limits.timeoutMillis, hello.description]).toEqual([1000, { description: "hi" }])
  })

  it.effect("a limit that cannot run fails the server's Layer with a CatalogError naming the component (defining it does not throw)", () =>
    Effect.gen(function*() {
      const bad = Tool.make("bad", { input: Schema.Struct({}), concurrency: 0 }, () => Effect.void)
      const slow = Resource.make({ uri: "file:///slow", name: "slow", timeout: "-1 seconds" }, () => Effect.succeed(Content.textContents("file:///slow", "")))
      const refusal = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(bad).layer))
      expect(refusal).toMatchObject({ _tag: "CatalogError", message: "Tool \"bad\": concurrency must be an integer ≥ 1, got 0" })
      const refusedResource = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(slow).layer))
      expect(refusedResource.message).toBe("Resource \"file:///slow\": timeout must be a positive duration")
      expect(ComponentOptions.check(ComponentOptions.resolve({ queue: 1.5 }))).toBe("queue must be an integer ≥ 0, got 1.5")
      expect(ComponentOptions.check(ComponentOptions.resolve({ concurrency: 2 }))).toBeUndefined()
    }).pipe(Effect.scoped))
})
