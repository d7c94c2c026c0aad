/**
 * A schema made by a second copy of `effect` is refused when the catalog is built, with a message
 * that says two copies are loaded (instead of a server that answers wrong at every call).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpServer, Prompt, Tool } from "@snodo/core"
import * as SchemaOrigin from "../src/catalog/internal/SchemaOrigin.ts"
import { Effect, Exit, Layer, Schema } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"

/** A second, independent copy of effect's build, loaded from a temporary directory. */
const loadSecondCopy = async (): Promise<{ readonly Schema: typeof Schema; readonly cleanup: () => void }> => {
  const installed = dirname(createRequire(import.meta.url).resolve("effect/package.json"))
  const root = mkdtempSync(join(tmpdir(), "snodo-second-effect-"))
  cpSync(join(installed, "dist"), join(root, "dist"), { recursive: true })
  cpSync(join(installed, "package.json"), join(root, "package.json"))
  const module = await import(pathToFileURL(join(root, "dist", "Schema.js")).href) as typeof Schema
  return { Schema: module, cleanup: () => rmSync(root, { recursive: true, force: true }) }
}

let second: Awaited<ReturnType<typeof loadSecondCopy>>
beforeAll(async () => {
  second = await loadSecondCopy()
}, 30_000)
afterAll(() => second.cleanup())

describe("two copies of effect", () => {
  it("tells this copy's schemas from another's", () => {
    expect(SchemaOrigin.isOurs(Schema.Struct({ a: Schema.Finite }))).toBe(true)
    const foreign = second.Schema.Struct({ a: second.Schema.Finite }) as unknown as Schema.Top
    expect(Schema.isSchema(foreign)).toBe(true) // why the check is needed: the two look alike
    expect(SchemaOrigin.isOurs(foreign)).toBe(false)
  })

  it("a catalog with a tool or prompt schema of another copy is refused, naming the component and the cause", async () => {
    const input = second.Schema.Struct({ a: second.Schema.Finite, b: second.Schema.Finite }) as unknown as Schema.Struct<{
      readonly a: typeof Schema.Finite
      readonly b: typeof Schema.Finite
    }>
    const add = Tool.make("add", { input }, ({ a, b }) => Effect.succeed(a + b))
    const built = await Effect.runPromiseExit(Layer.build(McpServer.make({ name: "t", version: "1" }).add(add).layer).pipe(Effect.scoped))
    expect(Exit.isFailure(built)).toBe(true)
    expect(String(built)).toContain('Tool "add": its input schema was made by another copy of the effect package')
    const args = second.Schema.Struct({ city: second.Schema.String }) as unknown as Schema.Struct<{ readonly city: typeof Schema.String }>
    const forecast = Prompt.make("forecast", { arguments: args }, ({ city }) => Effect.succeed([Prompt.user(city)]))
    const refused = await Effect.runPromiseExit(Layer.build(McpServer.make({ name: "t", version: "1" }).add(forecast).layer).pipe(Effect.scoped))
    expect(String(refused)).toContain('Prompt "forecast": its arguments schema was made by another copy')
  })
})
