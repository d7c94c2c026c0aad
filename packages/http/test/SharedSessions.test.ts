/**
 * Two instances' tables of sessions on one store (`SessionStore.makeMemory`, whose `touch` answers
 * at once): a request whose store answers at once is hydrated at once (an `Exit`: the transport
 * serves it without a fiber) once its copy follows the hub here, and a request that changed nothing
 * has nothing to wait for; a change still reaches the store before its answer, and the other
 * instance's next request sees it (strict), as it sees a DELETE. A store that waits is waited for.
 */
import { Principal } from "@snodo/core/Principal"
import * as Options from "../src/Options.ts"
import * as Sessions from "../src/Sessions.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"

const alice = Principal.of({ id: "alice", claims: {} })

const instances = (store: SessionStore.SessionStore["Service"]) => {
  let resumed = 0
  const options = { store, resume: () => Effect.sync(() => void resumed++) }
  const a = Sessions.make(Options.defaultSessions, Effect.runFork, 0, options)
  const b = Sessions.make(Options.defaultSessions, Effect.runFork, 0, options)
  return { a, b, sharedA: a.shared!, sharedB: b.shared!, resumed: () => resumed }
}

/** An initialized session of alice's, created and stored through `shared`. */
const opened = async (sessions: Sessions.Sessions) => {
  const shared = sessions.shared!
  const created = await Effect.runPromise(shared.reserve("alice"))
  if ("_tag" in created) throw new Error("refused")
  created.session.negotiate({ version: "2025-11-25", clientCapabilities: {}, clientInfo: { name: "test", version: "1" } })
  created.session.markInitialized()
  const persisted = shared.persist(created.id)
  // The negotiation changed the session: it is stored, which waits.
  expect(Exit.isExit(persisted)).toBe(false)
  await Effect.runPromise(persisted)
  return created
}

describe("shared sessions", () => {
  it("a request the store answers at once is hydrated at once, a request that changed nothing waits for nothing, a change is seen by the other instance's next request", async () => {
    const { a, b, resumed, sharedA, sharedB } = instances(SessionStore.makeMemory())
    const { id } = await opened(a)
    expect(Exit.isExit(sharedA.persist(id))).toBe(true)
    // On each instance the first request of the session resumes its copy on the hub (a fiber); the next do not.
    for (const shared of [sharedA, sharedB]) {
      const first = shared.hydrate(id, alice)
      expect(Exit.isExit(first)).toBe(false)
      await Effect.runPromise(first)
    }
    expect(resumed()).toBe(2)
    for (let i = 0; i < 3; i++) {
      const again = sharedB.hydrate(id, alice)
      expect(Exit.isExit(again) && Exit.isSuccess(again)).toBe(true)
      expect(Exit.isExit(sharedB.persist(id))).toBe(true)
    }
    expect(resumed()).toBe(2)
    const copy = b.find(id, "alice")
    expect(copy?.session.negotiated?.version).toBe("2025-11-25")
    expect(copy?.session.initialized).toBe(true)

    // setLevel on B: stored before its answer, and A's next request (answered at once) has it.
    copy!.session.setLogLevel("debug")
    const saved = sharedB.persist(id)
    expect(Exit.isExit(saved)).toBe(false)
    await Effect.runPromise(saved)
    expect(Exit.isExit(sharedA.hydrate(id, alice))).toBe(true)
    expect(a.find(id, "alice")?.session.logLevel).toBe("debug")
    // Reading back its own change is no change on B.
    expect(Exit.isExit(sharedB.hydrate(id, alice))).toBe(true)
    expect(Exit.isExit(sharedB.persist(id))).toBe(true)

    // Subscriptions as many as before but not the same ones are a change.
    copy!.session.subscribe("file:///a")
    await Effect.runPromise(sharedB.persist(id))
    copy!.session.unsubscribe("file:///a")
    copy!.session.subscribe("file:///b")
    const resubscribed = sharedB.persist(id)
    expect(Exit.isExit(resubscribed)).toBe(false)
    await Effect.runPromise(resubscribed)
    sharedA.hydrate(id, alice)
    expect(Array.from(a.find(id, "alice")?.session.resourceSubscriptions ?? [])).toEqual(["file:///b"])

    // DELETE on A: B's next request finds nothing, at once.
    await Effect.runPromise(sharedA.forget(id))
    expect(Exit.isExit(sharedB.hydrate(id, alice))).toBe(true)
    expect(b.find(id, "alice")).toBeUndefined()
  })

  it("a store that waits is waited for, with the same outcome", async () => {
    const memory = SessionStore.makeMemory()
    const waiting: SessionStore.SessionStore["Service"] = {
      ...memory,
      touch: (id, principal, limits) => Effect.andThen(Effect.yieldNow, Effect.suspend(() => memory.touch(id, principal, limits)))
    }
    const { b, resumed, sharedB } = instances(waiting)
    const { id } = await opened(Sessions.make(Options.defaultSessions, Effect.runFork, 0, { store: waiting, resume: () => Effect.void }))
    for (let i = 0; i < 2; i++) {
      const hydrated = sharedB.hydrate(id, alice)
      expect(Exit.isExit(hydrated)).toBe(false)
      await Effect.runPromise(hydrated)
    }
    expect(resumed()).toBe(1)
    expect(b.find(id, "alice")?.session.initialized).toBe(true)
    await Effect.runPromise(waiting.remove(id, "elsewhere"))
    await Effect.runPromise(sharedB.hydrate(id, alice))
    expect(b.find(id, "alice")).toBeUndefined()
  })
})
