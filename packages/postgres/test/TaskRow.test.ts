/**
 * A row as `@effect/sql-pg` returns it (int8 columns as `bigint`) becomes the record it stores; a
 * row the Schema refuses is a `TaskStoreError`, never a half-read task.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { first, records } from "../src/internal/TaskRow.ts"

const row = {
  task_id: "t1",
  principal: "alice",
  status: "working",
  status_message: null,
  created_at: 1_700_000_000_000n,
  last_updated_at: 1_700_000_000_500n,
  ttl_ms: null,
  poll_interval_ms: 250,
  work: { tool: "job" },
  input_requests: {},
  answers: { k: 1 },
  result: null,
  error: null,
  revision: 3n,
  generation: 2n,
  attempt: 1,
  lease_owner: "host/1",
  lease_expires_at: 1_700_000_030_000n,
  next_run_at: 1_700_000_000_000
}

describe("the PostgreSQL row codec", () => {
  it.effect("int8 columns as bigint or number become numbers; nulls become absent fields", () =>
    Effect.gen(function*() {
      const record = yield* first([row])
      expect(record).toMatchObject({
        taskId: "t1",
        createdAt: 1_700_000_000_000,
        lastUpdatedAt: 1_700_000_000_500,
        ttlMs: null,
        revision: 3,
        generation: 2,
        leaseOwner: "host/1",
        leaseExpiresAt: 1_700_000_030_000,
        nextRunAt: 1_700_000_000_000,
        statusMessage: undefined,
        result: undefined,
        answers: { k: 1 }
      })
      expect(yield* first([])).toBeUndefined()
    }))

  it.effect("a row it cannot read is a TaskStoreError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(records([{ ...row, status: "sleeping" }]))
      expect(error._tag).toBe("TaskStoreError")
      expect(error.message).toBe("A task row could not be read")
      expect((yield* Effect.flip(records([{ ...row, poll_interval_ms: 250n }])))._tag).toBe("TaskStoreError")
    }))
})
