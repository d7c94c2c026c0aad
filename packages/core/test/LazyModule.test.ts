/**
 * A module loaded at first use: imported once, then used at once; a failed import is a defect
 * that says what to keep, and the next use tries again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import * as LazyModule from "../src/pipeline/internal/LazyModule.ts"

describe("LazyModule", () => {
  it.effect("imports once; once loaded, `use` runs without waiting", () =>
    Effect.gen(function*() {
      let imports = 0
      const lazy = LazyModule.make(() => {
        imports++
        return Promise.resolve({ answer: 42 })
      })
      expect(lazy.loaded()).toBeUndefined()
      const first = yield* LazyModule.use(lazy, (module) => Effect.succeed(module.answer))
      expect(first).toBe(42)
      expect(lazy.loaded()).toEqual({ answer: 42 })
      // Loaded: `use` hands the module over at once, so a synchronous run sees it.
      expect(Effect.runSync(LazyModule.use(lazy, (module) => Effect.succeed(module.answer + 1)))).toBe(43)
      yield* lazy.load
      expect(imports).toBe(1)
    }))

  it.effect("a module that cannot be imported is a defect naming the packaging fault, with Node's error as its cause; the next load tries again", () =>
    Effect.gen(function*() {
      let attempts = 0
      const missing = new Error("Cannot find module '/app/node_modules/@snodo/core/dist/chunks/X.js'")
      const lazy = LazyModule.make(() => {
        attempts++
        return attempts === 1 ? Promise.reject(missing) : Promise.resolve({ ok: true })
      })
      const exit = yield* Effect.exit(lazy.load)
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const defect = Cause.squash(exit.cause)
        expect(defect).toBeInstanceOf(LazyModule.LazyModuleMissing)
        const error = defect instanceof LazyModule.LazyModuleMissing ? defect : undefined
        expect(error?.message).toContain("could not be imported")
        expect(error?.message).toContain("dist/chunks/X.js")
        expect(error?.message).toContain("keep every file of its dist/")
        expect(error?.cause).toBe(missing)
      }
      expect(lazy.loaded()).toBeUndefined()
      expect(yield* lazy.load).toEqual({ ok: true })
      expect(attempts).toBe(2)
    }))
})
