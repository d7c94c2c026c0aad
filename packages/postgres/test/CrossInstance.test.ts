/**
 * Two instances in one process (each with its own pool, as two servers would have), on the real
 * database: task signals and hub changes cross over through LISTEN/NOTIFY, a change too large for
 * a NOTIFY payload is carried by reference, topic changes keep to their principal, an instance
 * never receives its own change twice, and a lost LISTEN connection is re-established.
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { SubscriptionHub } from "@snodo/core"
import type { Principal } from "@snodo/core/Principal"
import { TaskSignals } from "@snodo/tasks/TaskSignals"
import * as TasksPostgres from "@snodo/postgres"
import { Context, Effect, Layer, Queue, type Scope } from "effect"
import { client, testSchema } from "./Database.ts"

const schema = testSchema()

const instance = (options: TasksPostgres.PgSubscriptionHub.Options = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Layer.mergeAll(
        TasksPostgres.PgSubscriptionHub.layer({ schema, ...options }),
        TasksPostgres.PgTaskSignals.layer({ schema })
      ).pipe(Layer.provideMerge(client({ maxConnections: 4 })))
    )
    return { hub: Context.get(context, SubscriptionHub.SubscriptionHub), signals: Context.get(context, TaskSignals), sql: Context.get(context, PgClient.PgClient) }
  })

const everything: SubscriptionHub.Filter = {
  toolsListChanged: true,
  promptsListChanged: false,
  resourcesListChanged: false,
  resourceSubscriptions: new Set(["file:///watched"]),
  topics: new Set(["io.modelcontextprotocol/tasks/t1"])
}

const principal = (id: string): Principal["Service"] => ({ id, claims: {} })

/** A listen stream's view of the hub: what it was delivered, in order. */
const stream = (hub: SubscriptionHub.SubscriptionHub["Service"], owner: string, filter = everything): Effect.Effect<Queue.Queue<SubscriptionHub.Change>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<SubscriptionHub.Change>()
    yield* hub.subscribe({ filter, principal: principal(owner), deliver: (change) => Queue.offerUnsafe(queue, change) })
    return queue
  })

const next = <A>(queue: Queue.Queue<A>) => Queue.take(queue).pipe(Effect.timeout("5 seconds"))

describe("PostgreSQL across instances", () => {
  it.live("a change published on B reaches A's streams that asked for it, once; B's own streams get it once too", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const onA = yield* stream(a.hub, "alice")
      const onB = yield* stream(b.hub, "alice")
      const notAsked = yield* stream(a.hub, "alice", { ...everything, toolsListChanged: false })
      yield* b.hub.publish(SubscriptionHub.toolsListChanged)
      yield* b.hub.publish(SubscriptionHub.resourceUpdated("file:///watched"))
      expect(yield* next(onA)).toEqual(SubscriptionHub.toolsListChanged)
      expect(yield* next(onA)).toEqual(SubscriptionHub.resourceUpdated("file:///watched"))
      expect(yield* next(onB)).toEqual(SubscriptionHub.toolsListChanged)
      expect(yield* next(onB)).toEqual(SubscriptionHub.resourceUpdated("file:///watched"))
      // A marker published afterwards: anything else queued before it would be a duplicate.
      yield* a.hub.publish(SubscriptionHub.resourceUpdated("file:///watched"))
      expect(yield* next(onB)).toEqual(SubscriptionHub.resourceUpdated("file:///watched"))
      expect(yield* next(onA)).toEqual(SubscriptionHub.resourceUpdated("file:///watched"))
      expect(Queue.sizeUnsafe(onA)).toBe(0)
      expect(Queue.sizeUnsafe(onB)).toBe(0)
      // It asked for the resource only: B's update and A's marker, never the tools change.
      expect((yield* next(notAsked))._tag).toBe("ResourceUpdated")
      expect((yield* next(notAsked))._tag).toBe("ResourceUpdated")
      expect(Queue.sizeUnsafe(notAsked)).toBe(0)
    }).pipe(Effect.scoped))

  it.live("topic changes carry their principal across instances; one over NOTIFY's 8,000 bytes is carried by reference", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const alice = yield* stream(a.hub, "alice")
      const bob = yield* stream(a.hub, "bob")
      const large = "é".repeat(20_000)
      const base = { topic: "io.modelcontextprotocol/tasks/t1", method: "notifications/tasks" }
      const change = SubscriptionHub.topic({
        ...base,
        params: { taskId: "t1", status: "completed", result: { content: [{ type: "text", text: large }] } },
        principal: "alice"
      })
      yield* b.hub.publish(change)
      const received = yield* next(alice)
      expect(received).toEqual(change)
      const [stored] = yield* b.sql<{ readonly n: bigint }>`SELECT count(*) AS n FROM ${b.sql(`${schema}.snodo_hub_payloads`)}`
      expect(stored?.n).toBe(1n)
      // bob's stream asked for the topic too, but the change is alice's.
      yield* b.hub.publish(SubscriptionHub.topic({ ...base, params: { taskId: "t1", status: "working" }, principal: "bob" }))
      expect(yield* next(bob)).toMatchObject({ _tag: "Topic", params: { status: "working" }, principal: "bob" })
      expect(Queue.sizeUnsafe(bob)).toBe(0)
      expect(Queue.sizeUnsafe(alice)).toBe(0)
    }).pipe(Effect.scoped))

  it.live("old payloads carried by reference are deleted", () =>
    Effect.gen(function*() {
      // kept long enough for B to read it on a loaded machine (at 50 ms, B sometimes read it after the cleanup)
      const a = yield* instance({ retainMs: 1_000, cleanupIntervalMs: 100 })
      const b = yield* instance()
      const onB = yield* stream(b.hub, "alice")
      yield* a.hub.publish(SubscriptionHub.topic({ topic: "io.modelcontextprotocol/tasks/t1", method: "notifications/tasks", params: { blob: "x".repeat(9_000) }, principal: undefined }))
      expect((yield* next(onB))._tag).toBe("Topic")
      const count = Effect.map(a.sql<{ readonly n: bigint }>`SELECT count(*) AS n FROM ${a.sql(`${schema}.snodo_hub_payloads`)} WHERE payload LIKE ${"%xxxxxxxxx%"}`, (rows) => rows[0]?.n)
      let left = yield* count
      for (let i = 0; i < 50 && left !== 0n; i++) {
        yield* Effect.sleep("100 millis")
        left = yield* count
      }
      expect(left).toBe(0n)
    }).pipe(Effect.scoped))

  it.live("task signals cross instances: a change and work announced on B wake A's listeners; B hears its own once", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const heardA = yield* Queue.unbounded<string>()
      const heardB = yield* Queue.unbounded<string>()
      yield* a.signals.listen({ changed: (id) => Queue.offerUnsafe(heardA, `changed ${id}`), work: () => Queue.offerUnsafe(heardA, "work") })
      yield* b.signals.listen({ changed: (id) => Queue.offerUnsafe(heardB, `changed ${id}`), work: () => Queue.offerUnsafe(heardB, "work") })
      yield* b.signals.changed("task-1")
      yield* b.signals.work
      expect(yield* next(heardA)).toBe("changed task-1")
      expect(yield* next(heardA)).toBe("work")
      expect(yield* next(heardB)).toBe("changed task-1")
      expect(yield* next(heardB)).toBe("work")
      yield* a.signals.changed("marker")
      expect(yield* next(heardB)).toBe("changed marker")
      expect(Queue.sizeUnsafe(heardB)).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a LISTEN connection that is killed is re-established", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const onA = yield* stream(a.hub, "alice")
      const kill = b.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE ${`LISTEN %${schema}%`} AND pid <> pg_backend_pid()`
      const killed = yield* kill
      expect(killed.length).toBeGreaterThanOrEqual(2)
      // Until A listens again its streams hear nothing: publish until one arrives.
      let arrived = false
      for (let i = 0; i < 50 && !arrived; i++) {
        yield* b.hub.publish(SubscriptionHub.toolsListChanged)
        arrived = (yield* Queue.take(onA).pipe(Effect.timeoutOption("200 millis")))._tag === "Some"
      }
      expect(arrived).toBe(true)
    }).pipe(Effect.scoped))
})
