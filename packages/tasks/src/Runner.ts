/**
 * The runner: claims tasks from the store and runs their work, at least once, on this instance.
 *
 * - **Leases.** A task runs only under a lease (default 30 s) that its worker renews every third of
 *   it. The claim gives the task a new generation; every write of the worker is fenced by it, so a
 *   worker that lost its task (another instance recovered it after the lease ran out, or a client
 *   cancelled it) learns so at its next write or heartbeat and stops.
 * - **Recovery.** Tasks whose lease expired (their worker died) are claimable again: any instance's
 *   claim loop picks them up and runs them again from the top (the task id is the idempotency key
 *   for the work's side effects). Answers already given are in the store and are reused.
 * - **Retries.** A run that dies of a defect is retried after the next delay of an exact list
 *   (default 1 s, 5 s, 30 s, measured on the store's clock); after the last one the task fails
 *   with -32603. A protocol error fails the task at once (`failed`, with that error), an `isError`
 *   result completes it.
 * - **Cancellation** is interruption: a cancelled task's worker is interrupted (at once on this
 *   instance, at its next signal or heartbeat elsewhere), its finalizers run, and its late writes
 *   are refused by the store. The fiber is the runner's, detached from the request that created the
 *   task: a client that goes away does not cancel its task.
 * - **Places.** At most `maxRunning` tasks run here at once, in a bulkhead of the core's
 *   (`Bulkhead`: the executor's fair queue, least recently started principal first). A task
 *   waiting for its client (`input_required`) gives its place back while it waits and queues for
 *   one again once answered, so unanswered tasks never starve the others. At most `maxParked`
 *   such runs are kept (their fibers wait and heartbeat); past it a parking task gives its run up
 *   and is run again from the top once answered. Which due task this
 *   instance claims next is fair across principals too (see `TaskStore.claim`). One run lasts at
 *   most `maxRunMs` (then `failed`, -32603).
 * - **Outcomes survive a store outage.** The final write (completed, failed, a retry) is retried
 *   with a capped exponential backoff (`finalWriteRetry`) for as long as the worker still holds
 *   the task, its heartbeats renewing the lease meanwhile: a result finished while the store was
 *   down is committed once it is back. Only a lost task (claimed elsewhere after the lease ran
 *   out, or cancelled) stops the retries, and only then may the work run again.
 *
 * Closing the runner's scope (the server shutting down) interrupts every local run and gives its
 * lease back, so another instance continues at once.
 *
 * @since 0.1.0
 */
import { InternalError, internalErrorOfDefect, isMcpError, type McpError, toWire } from "@snodo/core/McpError"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import * as Bulkhead from "@snodo/core/extension/Bulkhead"
import { Cause, Duration, Effect, Exit, FiberMap, Latch, Schedule, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import * as Task from "./Task.ts"
import * as TaskObservability from "./TaskObservability.ts"
import { TaskInput } from "./TaskInput.ts"
import { TaskSignals } from "./TaskSignals.ts"
import { TaskStore, type Transition } from "./TaskStore.ts"
import { WorkExecutor } from "./WorkExecutor.ts"

/**
 * Runner options.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Tasks running on this instance at once. */
  readonly maxRunning: number
  /**
   * Tasks waiting for their client (`input_required`) whose run this instance keeps (its fiber
   * waits, and heartbeats). A task that parks past it gives its run up: the task stays
   * `input_required` in the store, unleased, and once answered any instance runs it again from the
   * top, the answers given reused.
   */
  readonly maxParked: number
  /** How long a claim lasts without a heartbeat. */
  readonly leaseMs: number
  /** How long one run may last. */
  readonly maxRunMs: number
  /** The delay before each retry of a run that died; its length is the number of retries. */
  readonly retryDelaysMs: ReadonlyArray<number>
  /** How often an idle runner looks for claimable tasks (signals wake it sooner). */
  readonly claimIntervalMs: number
  /** How often expired tasks are deleted, and at most how many per batch. */
  readonly reapIntervalMs: number
  readonly reapBatch: number
}

/**
 * How a final write (completed, failed, retry, a run given up) is retried while the store cannot answer: 100 ms,
 * doubling, at most 5 s apart, for as long as the worker holds the task.
 *
 * @category constants
 * @since 0.1.0
 */
export const finalWriteRetry: Schedule.Schedule<Duration.Duration> = Schedule.min([
  Schedule.exponential("100 millis"),
  Schedule.spaced("5 seconds")
])

/**
 * Defaults: 32 running, 256 parked, 30 s lease, 1 h per run, retries after 1 s, 5 s, 30 s.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: Options = {
  maxRunning: 32,
  maxParked: 256,
  leaseMs: 30_000,
  maxRunMs: 3_600_000,
  retryDelaysMs: [1_000, 5_000, 30_000],
  claimIntervalMs: 1_000,
  reapIntervalMs: 60_000,
  reapBatch: 100
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Runner {
  /** This instance's lease owner name. */
  readonly owner: string
  /** Whether a place is free, so a task created here can be leased to this instance at once. */
  readonly hasCapacity: () => boolean
  /** Runs a task leased to this instance (at its creation). */
  readonly start: (task: Task.TaskRecord) => Effect.Effect<void>
  /** A task changed (a client answered or cancelled it): its local worker looks again. */
  readonly changed: (taskId: string) => void
  /** Tasks running here (holding a place; a task waiting for its client holds none). */
  readonly running: () => number
  /** Runs kept here while their task waits for its client. */
  readonly parked: () => number
}

const timedOut = (maxRunMs: number): InternalError =>
  new InternalError({ message: `Task exceeded its maximum run time (${Duration.format(Duration.millis(maxRunMs))})` })

/** The transitions that move a task to another state (a release or a retry leaves it `working`). */
const entersState: Readonly<Record<Transition["_tag"], boolean>> = {
  Park: true,
  Resume: true,
  Complete: true,
  Fail: true,
  Note: false,
  Release: false,
  Retry: false
}

type Outcome =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<Readonly<Record<string, JsonValue>>, McpError> }
  | { readonly _tag: "TimedOut" }

/**
 * Starts a runner in the current scope. `publish` is told every change a worker makes (for
 * `notifications/tasks`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(
  options: Options,
  publish: (task: Task.TaskRecord) => Effect.Effect<void>,
  observability: TaskObservability.TaskObservability = TaskObservability.none
): Effect.fn.Return<Runner, never, TaskStore | TaskSignals | WorkExecutor | Scope.Scope> {
  const store = yield* TaskStore
  const signals = yield* TaskSignals
  const executor = yield* WorkExecutor
  const owner = `${hostname()}/${process.pid}/${randomBytes(6).toString("base64url")}`
  const fibers = yield* FiberMap.make<string, void, never>()
  /** Wakes the watch loop of a task running here. */
  const watchers = new Map<string, () => void>()
  const claimWake = Latch.makeUnsafe(false)
  // The places: no queue bound (how many tasks exist is the store's limits' business).
  const places = Bulkhead.make(options.maxRunning, Number.MAX_SAFE_INTEGER)
  /** Runs started here that have not asked for their place yet. */
  let starting = 0
  /** Runs kept here while their task waits for its client. */
  let parked = 0
  const free = () => options.maxRunning - places.running() - places.waiting() - starting
  const heartbeatMs = Math.max(1, Math.floor(options.leaseMs / 3))

  const changed = (taskId: string) => watchers.get(taskId)?.()
  yield* signals.listen({ changed, work: () => claimWake.openUnsafe() })

  const logged = <A>(what: string, effect: Effect.Effect<A, unknown>): Effect.Effect<A | undefined> =>
    effect.pipe(Effect.catchCause((cause) => Effect.as(Effect.logError(what, cause), undefined)))

  const announce = (transition: Transition) => (written: Task.TaskRecord | undefined) => {
    if (written === undefined) return Effect.void
    if (entersState[transition._tag]) observability.entered(written.status)
    return publish(written)
  }

  const write = (task: Task.TaskRecord, transition: Transition) =>
    logged(`task ${task.taskId}: store write failed`, store.transition(task.taskId, task.generation, transition)).pipe(
      Effect.tap(announce(transition))
    )

  /**
   * A final write: retried while the store cannot answer (the run's watch keeps renewing the lease
   * meanwhile, and ends the run if the task is lost); `undefined` once fenced.
   */
  const settleWith = (task: Task.TaskRecord, transition: Transition) =>
    store.transition(task.taskId, task.generation, transition).pipe(
      Effect.tapError((error) => Effect.logWarning(`task ${task.taskId}: its ${transition._tag} write failed; retrying`, error)),
      Effect.retry(finalWriteRetry),
      Effect.tap(announce(transition)),
      Effect.asVoid,
      // The schedule never ends: this is only reached if it is given one that does.
      Effect.catchCause((cause) => Effect.logError(`task ${task.taskId}: its ${transition._tag} write was abandoned`, cause))
    )

  /** Heartbeats until the worker is fenced (then completes), waking early on a signal. */
  const watch = (task: Task.TaskRecord, input: TaskInput): Effect.Effect<void> =>
    Effect.gen(function*() {
      const wake = Latch.makeUnsafe(false)
      watchers.set(task.taskId, () => wake.openUnsafe())
      yield* Effect.addFinalizer(() => Effect.sync(() => watchers.delete(task.taskId)))
      for (;;) {
        yield* Effect.timeoutOrElse(wake.await, { duration: Duration.millis(heartbeatMs), orElse: () => Effect.void })
        wake.closeUnsafe()
        const current = yield* logged(`task ${task.taskId}: heartbeat failed`, store.heartbeat(task.taskId, task.generation, options.leaseMs))
        // A failed heartbeat is retried at the next beat; a fenced one ends the run. A store that
        // cannot answer (a database restarting) is not a fence: the run goes on, and if the lease
        // runs out meanwhile, the next heartbeat finds the task claimed elsewhere.
        if (current === undefined) {
          const fresh = yield* Effect.exit(store.get(task.taskId))
          if (Exit.isFailure(fresh)) {
            yield* Effect.logError(`task ${task.taskId}: read failed`, fresh.cause)
            continue
          }
          if (fresh.value === undefined || fresh.value.generation !== task.generation || Task.isTerminal(fresh.value.status)) return
          continue
        }
        input.observe(current)
      }
    }).pipe(Effect.scoped)

  const settle = (task: Task.TaskRecord, input: TaskInput, outcome: Outcome): Effect.Effect<void> => {
    switch (outcome._tag) {
      case "TimedOut":
        return settleWith(task, { _tag: "Fail", error: wireOf(timedOut(options.maxRunMs)) })
      case "Done": {
        const exit = outcome.exit
        if (Exit.isSuccess(exit)) return settleWith(task, { _tag: "Complete", result: exit.value })
        if (input.refusal !== undefined) return settleWith(task, { _tag: "Fail", error: wireOf(input.refusal) })
        const failure = Cause.findError(exit.cause)
        if (failure._tag === "Success" && isMcpError(failure.success)) {
          return settleWith(task, { _tag: "Fail", error: wireOf(failure.success) })
        }
        // The handler gave its run up (parked past maxParked): the lease goes back, retried too,
        // since this instance never claims a task whose lease is still its own.
        if (Cause.hasInterruptsOnly(exit.cause)) return settleWith(task, { _tag: "Release" })
        const delay = options.retryDelaysMs[task.attempt - 1]
        return Effect.logError(`task ${task.taskId}: attempt ${task.attempt} died`, exit.cause).pipe(
          Effect.andThen(
            delay === undefined
              ? settleWith(task, { _tag: "Fail", error: wireOf(internalErrorOfDefect()) })
              : settleWith(task, { _tag: "Retry", delayMs: delay })
          )
        )
      }
    }
  }

  const run = (task: Task.TaskRecord): Effect.Effect<void> => {
    let holding = false
    /** Takes a place (waiting fairly for one); an interrupted wait leaves none taken. */
    const take = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(restore(Bulkhead.acquire(places, task.principal)), (placed) => Effect.sync(() => void (holding = placed)))
    )
    const giveBack = Effect.sync(() => {
      if (!holding) return
      holding = false
      Bulkhead.release(places, task.principal)
      claimWake.openUnsafe()
    })
    const input: TaskInput = new TaskInput(task, {
      park: (inputRequests) => write(task, { _tag: "Park", inputRequests }),
      resume: Effect.asVoid(write(task, { _tag: "Resume" })),
      note: (statusMessage) => Effect.asVoid(write(task, { _tag: "Note", statusMessage })),
      // Waiting for the client holds no place: it is taken again, fairly, once answered. Past
      // maxParked the run is given up (an interruption: settle releases the lease, and the task,
      // still input_required, is claimable again once answered).
      idle: (waiting) =>
        Effect.suspend(() => {
          if (parked >= options.maxParked) {
            return Effect.andThen(Effect.logDebug(`task ${task.taskId}: parked past ${options.maxParked} on this instance; its run is given up until answered`), Effect.interrupt)
          }
          parked++
          // Answered: a place is taken again before the handler goes on. Interrupted while
          // waiting (cancelled, shut down): no place is taken.
          return Effect.uninterruptibleMask((restore) =>
            giveBack.pipe(
              Effect.andThen(Effect.ensuring(restore(waiting), Effect.sync(() => parked--))),
              Effect.tap(() => restore(take))
            )
          )
        })
    })
    const work = observability.run(task, executor.execute(task, input)).pipe(
      Effect.exit,
      Effect.map((exit): Outcome => ({ _tag: "Done", exit })),
      Effect.timeoutOrElse({ duration: Duration.millis(options.maxRunMs), orElse: () => Effect.succeed<Outcome>({ _tag: "TimedOut" }) }),
      Effect.flatMap((outcome) => settle(task, input, outcome))
    )
    // The watch heartbeats through the work and the final write alike; it ends the run once the
    // task is lost (cancelled, or claimed elsewhere after the lease ran out).
    const lost = Effect.andThen(
      watch(task, input),
      Effect.logDebug(`task ${task.taskId}: the worker lost its task (cancelled or recovered elsewhere)`)
    )
    return Effect.andThen(
      Effect.andThen(Effect.sync(() => starting--), take),
      Effect.raceFirst(work, lost)
    ).pipe(
      // Interrupted from outside (the runner's scope closing): the lease goes back at once.
      Effect.onInterrupt(() => Effect.asVoid(logged(`task ${task.taskId}: release failed`, store.transition(task.taskId, task.generation, { _tag: "Release" })))),
      Effect.ensuring(Effect.andThen(giveBack, Effect.sync(() => claimWake.openUnsafe())))
    )
  }

  const start = (task: Task.TaskRecord): Effect.Effect<void> =>
    Effect.suspend(() => {
      starting++
      return Effect.asVoid(FiberMap.run(fibers, task.taskId, run(task)))
    })

  const claimLoop = Effect.gen(function*() {
    for (;;) {
      const room = free()
      if (room > 0) {
        const claimed = yield* logged("claiming tasks failed", store.claim(owner, options.leaseMs, room))
        for (const task of claimed ?? []) yield* start(task)
      }
      yield* Effect.timeoutOrElse(claimWake.await, { duration: Duration.millis(options.claimIntervalMs), orElse: () => Effect.void })
      claimWake.closeUnsafe()
    }
  })

  const reapLoop = Effect.gen(function*() {
    for (;;) {
      yield* Effect.sleep(Duration.millis(options.reapIntervalMs))
      // bounded batches, at most 100 per pass: a backlog is worked off over several passes
      for (let batch = 0; batch < 100; batch++) {
        const deleted = yield* logged("reaping expired tasks failed", store.expire(options.reapBatch))
        if (deleted === undefined || deleted < options.reapBatch) break
      }
    }
  })

  yield* Effect.forkScoped(claimLoop)
  yield* Effect.forkScoped(reapLoop)

  return {
    owner,
    hasCapacity: () => free() > 0,
    start,
    changed,
    running: () => places.running(),
    parked: () => parked
  }
})

/**
 * A protocol error as a failed task carries it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const wireOf = (error: McpError): Task.TaskError => toWire(error) as Task.TaskError
