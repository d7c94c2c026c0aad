/**
 * The contract every `TaskStore` must keep, as an `@effect/vitest` suite a store package runs
 * against its own Layer.
 *
 * It checks creation and durable reads, leases and claims (two claimers never share a task, an
 * expired lease is recovered with a new generation), the fence (a stale worker's writes and
 * heartbeats change nothing), every transition, the client's answers (outstanding keys only, a
 * partial set leaves the rest pending), cancellation (terminal tasks never change), time to live,
 * retry delays and the capacity limits. Time is the store's own: the suite uses short real
 * durations (a few hundred milliseconds), so it runs under `it.live`.
 *
 * @example
 * ```ts
 * // packages/tasks-sqlite/test/Contract.test.ts
 * import { contract } from "@snodo/tasks/TaskStoreContract"
 * import * as TasksSqlite from "@snodo/tasks-sqlite"
 *
 * contract("sqlite", TasksSqlite.layer({ filename: ":memory:", migrate: true }))
 * ```
 *
 * @since 0.1.0
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Task from "./Task.ts"
import { type Limits, TaskLimitReached, TaskStore } from "./TaskStore.ts"

const limits: Limits = { maxStored: 1_000, maxActivePerPrincipal: 1_000 }

const work = (principal = "alice", tool = "slow_compute"): Task.Work => ({
  tool,
  arguments: {
    seconds: 1,
    label: "contract",
    nested: { list: [1, "two", null, true], empty: {}, none: [] },
    // JSON text survives a store exactly: non-ASCII, escapes, fractions, large integers.
    text: "naïve ✓ 🚀 \"quoted\" \\ \u0000 end",
    numbers: [0.1, -2.5e-7, 9_007_199_254_740_991, 1e21]
  },
  principal: { id: principal, claims: { scope: "tasks", tenant: "t1" } },
  protocolVersion: "2026-07-28",
  clientCapabilities: { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
  clientInfo: { name: "contract", version: "1.0.0" }
})

const fresh = (options?: { readonly principal?: string; readonly ttlMs?: number | null; readonly answers?: Task.NewTask["answers"] }): Task.NewTask => ({
  taskId: Task.makeId(),
  work: work(options?.principal),
  ttlMs: options?.ttlMs === undefined ? 60_000 : options.ttlMs,
  pollIntervalMs: 250,
  answers: options?.answers ?? {}
})

const elicit = (message: string) => ({
  method: "elicitation/create" as const,
  params: { message, requestedSchema: { type: "object" as const, properties: { ok: { type: "boolean" as const } } } }
})

const wait = (millis: number) => Effect.sleep(`${millis} millis`)

/**
 * Registers the contract suite for a store.
 *
 * @category combinators
 * @since 0.1.0
 */
export const contract = <E>(name: string, layer: Layer.Layer<TaskStore, E>): void => {
  const withStore = <A, F>(effect: Effect.Effect<A, F, TaskStore>) => Effect.provide(effect, layer)

  describe(`TaskStore contract: ${name}`, () => {
    it.live("a created task is durable and reads back exactly", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const before = yield* store.now
        const created = yield* store.create(fresh({ answers: { early: { action: "accept", content: { ok: true } } } }), limits)
        const read = yield* store.get(created.taskId)
        expect(read).toEqual(created)
        expect(read).toMatchObject({
          status: "working",
          principal: "alice",
          revision: 1,
          generation: 0,
          attempt: 0,
          ttlMs: 60_000,
          pollIntervalMs: 250,
          work: work(),
          answers: { early: { action: "accept", content: { ok: true } } },
          inputRequests: {}
        })
        expect(created.createdAt).toBeGreaterThanOrEqual(before - 1000)
        expect(created.lastUpdatedAt).toBe(created.createdAt)
        expect(yield* store.get(Task.makeId())).toBeUndefined()
      })))

    it.live("a task created with a lease is its creator's; without one, exactly one claimer gets it", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const leased = yield* store.create(fresh(), limits, { owner: "creator", leaseMs: 10_000 })
        expect(leased).toMatchObject({ generation: 1, attempt: 1, leaseOwner: "creator" })
        const open = yield* store.create(fresh(), limits)
        const claims = yield* Effect.all([store.claim("a", 10_000, 100), store.claim("b", 10_000, 100)], { concurrency: "unbounded" })
        const claimed = claims.flat().map((task) => task.taskId)
        expect(claimed.filter((id) => id === leased.taskId)).toEqual([])
        expect(claimed.filter((id) => id === open.taskId)).toEqual([open.taskId])
        const mine = claims.flat().find((task) => task.taskId === open.taskId)!
        expect(mine).toMatchObject({ generation: 1, attempt: 1, status: "working" })
        expect(yield* store.claim("c", 10_000, 100)).toEqual([])
      })))

    it.live("concurrent claimers of many tasks share none and miss none", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const ids = new Set<string>()
        for (let i = 0; i < 20; i++) ids.add((yield* store.create(fresh({ principal: `p${i % 3}` }), limits)).taskId)
        const claims = yield* Effect.all(
          ["w1", "w2", "w3"].map((owner) => store.claim(owner, 10_000, 7)),
          { concurrency: "unbounded" }
        )
        const claimed = claims.flat().map((task) => task.taskId).filter((id) => ids.has(id))
        expect(new Set(claimed).size).toBe(claimed.length)
        const rest = (yield* store.claim("w4", 10_000, 100)).map((task) => task.taskId).filter((id) => ids.has(id))
        expect(new Set([...claimed, ...rest])).toEqual(ids)
      })))

    it.live("an expired lease is recovered with a new generation; the stale worker is fenced", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const task = yield* store.create(fresh(), limits, { owner: "dead", leaseMs: 200 })
        expect((yield* store.claim("rescuer", 10_000, 100)).map((claimed) => claimed.taskId)).not.toContain(task.taskId)
        yield* wait(400)
        const recovered = (yield* store.claim("rescuer", 10_000, 100)).find((claimed) => claimed.taskId === task.taskId)
        expect(recovered).toMatchObject({ generation: 2, attempt: 2, leaseOwner: "rescuer" })
        expect(yield* store.heartbeat(task.taskId, task.generation, 10_000)).toBeUndefined()
        expect(yield* store.transition(task.taskId, task.generation, { _tag: "Complete", result: { content: [] } })).toBeUndefined()
        expect(yield* store.get(task.taskId)).toEqual(recovered)
      })))

    it.live("a heartbeat keeps the lease: nobody claims the task while its worker beats", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const task = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 300 })
        for (let beat = 0; beat < 3; beat++) {
          yield* wait(150)
          const beaten = yield* store.heartbeat(task.taskId, task.generation, 300)
          expect(beaten?.generation).toBe(task.generation)
        }
        expect((yield* store.claim("other", 10_000, 100)).map((claimed) => claimed.taskId)).not.toContain(task.taskId)
        expect((yield* store.get(task.taskId))?.revision).toBe(task.revision)
      })))

    it.live("parking, partial answers, ignored keys, resuming and completing", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const task = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 10_000 })
        const parked = yield* store.transition(task.taskId, task.generation, {
          _tag: "Park",
          inputRequests: { first: elicit("one?"), second: elicit("two?") }
        })
        expect(parked).toMatchObject({ status: "input_required", revision: task.revision + 1 })
        expect(Object.keys(parked!.inputRequests).toSorted()).toEqual(["first", "second"])
        const ignored = yield* store.respond(task.taskId, { never_asked: { action: "accept" } })
        expect(ignored?.revision).toBe(parked!.revision)
        const partial = yield* store.respond(task.taskId, { first: { action: "accept", content: { ok: true } }, unknown: { x: 1 } })
        expect(partial).toMatchObject({ status: "input_required", answers: { first: { action: "accept", content: { ok: true } } } })
        expect(Object.keys(partial!.inputRequests)).toEqual(["second"])
        expect(partial!.answers).not.toHaveProperty("unknown")
        const again = yield* store.respond(task.taskId, { first: { action: "decline" } })
        expect(again?.answers["first"]).toEqual({ action: "accept", content: { ok: true } })
        const done = yield* store.respond(task.taskId, { second: { action: "decline" } })
        expect(done).toMatchObject({ status: "working", inputRequests: {} })
        const note = yield* store.transition(task.taskId, task.generation, { _tag: "Note", statusMessage: "half way" })
        expect(note?.statusMessage).toBe("half way")
        const result = { resultType: "complete", content: [{ type: "text", text: "done" }], isError: false }
        const completed = yield* store.transition(task.taskId, task.generation, { _tag: "Complete", result })
        expect(completed).toMatchObject({ status: "completed", result, leaseOwner: undefined })
        expect(yield* store.transition(task.taskId, task.generation, { _tag: "Fail", error: { code: -32603, message: "late" } })).toBeUndefined()
        const cancelled = yield* store.cancel(task.taskId)
        expect(cancelled).toEqual(completed)
        expect(yield* store.get(task.taskId)).toEqual(completed)
      })))

    it.live("failing keeps the JSON-RPC error; a retry waits for its delay and is an attempt more", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const failing = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 10_000 })
        const error = { code: -32603, message: "backend unavailable", data: { retryable: false } }
        expect(yield* store.transition(failing.taskId, failing.generation, { _tag: "Fail", error })).toMatchObject({ status: "failed", error })
        const retried = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 10_000 })
        const waiting = yield* store.transition(retried.taskId, retried.generation, { _tag: "Retry", delayMs: 300 })
        expect(waiting).toMatchObject({ status: "working", leaseOwner: undefined })
        expect((yield* store.claim("next", 10_000, 100)).map((task) => task.taskId)).not.toContain(retried.taskId)
        yield* wait(450)
        const again = (yield* store.claim("next", 10_000, 100)).find((task) => task.taskId === retried.taskId)
        expect(again).toMatchObject({ attempt: 2, generation: 2, leaseOwner: "next" })
      })))

    it.live("a released task is claimable at once; a cancelled one fences its worker and stays cancelled", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const released = yield* store.create(fresh(), limits, { owner: "leaving", leaseMs: 60_000 })
        expect(yield* store.transition(released.taskId, released.generation, { _tag: "Release" })).toMatchObject({ leaseOwner: undefined })
        expect((yield* store.claim("staying", 10_000, 100)).map((task) => task.taskId)).toContain(released.taskId)
        const running = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 60_000 })
        const cancelled = yield* store.cancel(running.taskId)
        expect(cancelled).toMatchObject({ status: "cancelled", generation: running.generation + 1 })
        expect(yield* store.heartbeat(running.taskId, running.generation, 60_000)).toBeUndefined()
        expect(yield* store.transition(running.taskId, running.generation, { _tag: "Complete", result: { content: [] } })).toBeUndefined()
        expect(yield* store.respond(running.taskId, { any: { action: "accept" } })).toEqual(cancelled)
        expect(yield* store.cancel(running.taskId)).toEqual(cancelled)
        expect(yield* store.cancel(Task.makeId())).toBeUndefined()
        expect(yield* store.respond(Task.makeId(), {})).toBeUndefined()
      })))

    it.live("tasks past their time to live are deleted in bounded batches; unlimited ones stay", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const short = [yield* store.create(fresh({ ttlMs: 200 }), limits), yield* store.create(fresh({ ttlMs: 200 }), limits)]
        const forever = yield* store.create(fresh({ ttlMs: null }), limits)
        const long = yield* store.create(fresh({ ttlMs: 60_000 }), limits)
        expect(Task.isExpired(short[0]!, yield* store.now)).toBe(false)
        yield* wait(350)
        expect(Task.isExpired((yield* store.get(short[0]!.taskId))!, yield* store.now)).toBe(true)
        let deleted = 0
        for (let pass = 0; pass < 10 && deleted < 2; pass++) {
          const batch = yield* store.expire(1)
          // bounded: one batch never deletes more than asked
          expect(batch).toBeLessThanOrEqual(1)
          deleted += batch
        }
        expect(deleted).toBeGreaterThanOrEqual(2)
        for (const task of short) expect(yield* store.get(task.taskId)).toBeUndefined()
        expect(yield* store.get(forever.taskId)).toBeDefined()
        expect(yield* store.get(long.taskId)).toBeDefined()
      })))

    it.live("a parked task keeps its lease by heartbeat; parked after its worker died, it is claimed again only once answered", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const waiting = yield* store.create(fresh(), limits, { owner: "worker", leaseMs: 10_000 })
        yield* store.transition(waiting.taskId, waiting.generation, { _tag: "Park", inputRequests: { ok: elicit("ok?") } })
        const beaten = yield* store.heartbeat(waiting.taskId, waiting.generation, 10_000)
        expect(beaten).toMatchObject({ status: "input_required", generation: waiting.generation })
        const orphan = yield* store.create(fresh(), limits, { owner: "dead", leaseMs: 200 })
        yield* store.transition(orphan.taskId, orphan.generation, { _tag: "Park", inputRequests: { ok: elicit("ok?") } })
        yield* wait(350)
        expect((yield* store.claim("rescuer", 10_000, 100)).map((task) => task.taskId)).not.toContain(orphan.taskId)
        expect(yield* store.respond(orphan.taskId, { ok: { action: "accept", content: { ok: true } } })).toMatchObject({ status: "working" })
        const rerun = (yield* store.claim("rescuer", 10_000, 100)).find((task) => task.taskId === orphan.taskId)
        expect(rerun).toMatchObject({ generation: orphan.generation + 1, answers: { ok: { action: "accept", content: { ok: true } } } })
      })))

    it.live("concurrent creates never pass a limit", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const principal = `p-${Task.makeId()}`
        const tight: Limits = { maxStored: 1_000, maxActivePerPrincipal: 3 }
        const outcomes = yield* Effect.all(
          Array.from({ length: 8 }, () => Effect.result(store.create(fresh({ principal }), tight))),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((outcome) => outcome._tag === "Success")).toHaveLength(3)
        for (const outcome of outcomes) {
          if (outcome._tag === "Failure") expect(outcome.failure).toMatchObject({ _tag: "TaskLimitReached", limit: "activePerPrincipal" })
        }
      })))

    it.live("capacity: stored tasks and one principal's active tasks are bounded; terminal ones are not active", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const principal = `p-${Task.makeId()}`
        const tight: Limits = { maxStored: 1_000, maxActivePerPrincipal: 2 }
        const first = yield* store.create(fresh({ principal }), tight, { owner: "w", leaseMs: 60_000 })
        yield* store.create(fresh({ principal }), tight)
        const refused = yield* Effect.flip(store.create(fresh({ principal }), tight))
        expect(refused).toBeInstanceOf(TaskLimitReached)
        expect(refused).toMatchObject({ limit: "activePerPrincipal", max: 2 })
        yield* store.create(fresh({ principal: `${principal}-other` }), tight)
        yield* store.transition(first.taskId, first.generation, { _tag: "Complete", result: { content: [] } })
        yield* store.create(fresh({ principal }), tight)
        const full = yield* Effect.flip(store.create(fresh(), { maxStored: 1, maxActivePerPrincipal: 1_000 }))
        expect(full).toMatchObject({ limit: "stored", max: 1 })
      })))

    it.live("stored quotas per principal count every status until expiry, and say when the first counted task expires", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const principal = `p-${Task.makeId()}`
        const quota: Limits = { ...limits, maxStoredPerPrincipal: 2 }
        const first = yield* store.create(fresh({ principal, ttlMs: 400 }), quota, { owner: "w", leaseMs: 60_000 })
        yield* store.transition(first.taskId, first.generation, { _tag: "Complete", result: { content: [] } })
        yield* store.create(fresh({ principal, ttlMs: 60_000 }), quota)
        // Terminal tasks count: instant tasks cannot fill the store past the principal's quota.
        const refused = yield* Effect.flip(store.create(fresh({ principal }), quota))
        expect(refused).toMatchObject({ _tag: "TaskLimitReached", limit: "storedPerPrincipal", max: 2 })
        expect((refused as TaskLimitReached).retryAfterMs).toBeGreaterThan(0)
        expect((refused as TaskLimitReached).retryAfterMs).toBeLessThanOrEqual(400)
        // Another principal is not refused by this one's quota.
        yield* store.create(fresh({ principal: `${principal}-other` }), quota)
        // Expired (even before it is reaped), the first task no longer counts.
        yield* wait(500)
        yield* store.create(fresh({ principal }), quota)
      })))

    it.live("byte budgets: per principal and in all, work, answers and results counted", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const principal = `p-${Task.makeId()}`
        const big = (owner: string) => ({ ...fresh({ principal: owner }), work: { ...work(owner), arguments: { blob: "x".repeat(10_000) } } })
        const budget: Limits = { ...limits, maxStoredBytesPerPrincipal: 25_000 }
        const one = yield* store.create(big(principal), budget, { owner: "w", leaseMs: 60_000 })
        yield* store.create(big(principal), budget)
        const refused = yield* Effect.flip(store.create(big(principal), budget))
        expect(refused).toMatchObject({ _tag: "TaskLimitReached", limit: "storedBytesPerPrincipal", max: 25_000 })
        expect((refused as TaskLimitReached).retryAfterMs).toBeGreaterThan(0)
        // A result counts too: after a 20 kB result, a small task of this principal no longer fits.
        const small: Limits = { ...limits, maxStoredBytesPerPrincipal: 40_000 }
        yield* store.create(fresh({ principal }), small)
        yield* store.transition(one.taskId, one.generation, { _tag: "Complete", result: { content: [{ type: "text", text: "y".repeat(20_000) }] } })
        expect(yield* Effect.flip(store.create(fresh({ principal }), small))).toMatchObject({ limit: "storedBytesPerPrincipal" })
        const total = yield* Effect.flip(store.create(big(`${principal}-other`), { ...limits, maxStoredBytes: 5_000 }))
        expect(total).toMatchObject({ limit: "storedBytes", max: 5_000 })
      })))

    it.live("claims are fair across principals: one principal's backlog does not delay another's first task", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        // Drain what earlier tests left claimable, so only this test's tasks compete.
        yield* store.claim("drain", 60_000, 10_000)
        const heavy = `heavy-${Task.makeId()}`
        const light = `light-${Task.makeId()}`
        yield* store.create(fresh({ principal: heavy }), limits, { owner: "elsewhere", leaseMs: 60_000 })
        for (let i = 0; i < 5; i++) yield* store.create(fresh({ principal: heavy }), limits)
        yield* wait(5)
        const newcomer = yield* store.create(fresh({ principal: light }), limits)
        // One place: the light principal has none running, the heavy one has one.
        const [next] = yield* store.claim("w", 60_000, 1)
        expect(next?.taskId).toBe(newcomer.taskId)
        const rest = yield* store.claim("w", 60_000, 10)
        expect(rest.filter((task) => task.principal === heavy)).toHaveLength(5)
      })))

    it.live("one claim of several takes them by share across principals, each principal's in its order", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        yield* store.claim("drain", 60_000, 10_000)
        const early = `early-${Task.makeId()}`
        const late = `late-${Task.makeId()}`
        const busy = `busy-${Task.makeId()}`
        // busy has two running: its waiting tasks rank after two of each idle principal's.
        for (let i = 0; i < 2; i++) yield* store.create(fresh({ principal: busy }), limits, { owner: "elsewhere", leaseMs: 60_000 })
        const busyWaiting = yield* store.create(fresh({ principal: busy }), limits)
        const earlyTasks = [yield* store.create(fresh({ principal: early }), limits)]
        yield* wait(5)
        earlyTasks.push(yield* store.create(fresh({ principal: early }), limits))
        yield* wait(5)
        earlyTasks.push(yield* store.create(fresh({ principal: early }), limits))
        yield* wait(5)
        const lateTasks = [yield* store.create(fresh({ principal: late }), limits)]
        yield* wait(5)
        lateTasks.push(yield* store.create(fresh({ principal: late }), limits))
        const ids = (tasks: ReadonlyArray<Task.TaskRecord>) => tasks.map((task) => task.taskId).toSorted()
        // Shares: early 1, 2, 3; late 1, 2; busy 3. The four least are early's first two and late's two.
        const taken = yield* store.claim("w", 60_000, 4)
        expect(ids(taken)).toEqual(ids([earlyTasks[0]!, earlyTasks[1]!, ...lateTasks]))
        const rest = yield* store.claim("w", 60_000, 10)
        expect(ids(rest)).toEqual(ids([earlyTasks[2]!, busyWaiting]))
      })))

    it.live("a claimer never recovers its own expired lease (it is alive, finishing the run); another claimer does", () =>
      withStore(Effect.gen(function*() {
        const store = yield* TaskStore
        const task = yield* store.create(fresh(), limits, { owner: "slow-writer", leaseMs: 200 })
        yield* wait(350)
        expect((yield* store.claim("slow-writer", 10_000, 10_000)).map((claimed) => claimed.taskId)).not.toContain(task.taskId)
        // Its heartbeat still renews the lease (the generation is its own), and its outcome commits.
        expect(yield* store.heartbeat(task.taskId, task.generation, 10_000)).toMatchObject({ generation: task.generation })
        const other = yield* store.create(fresh(), limits, { owner: "dead", leaseMs: 200 })
        yield* wait(350)
        expect((yield* store.claim("rescuer", 10_000, 10_000)).map((claimed) => claimed.taskId)).toContain(other.taskId)
      })))
  })
}
