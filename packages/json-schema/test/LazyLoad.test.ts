/**
 * hyperjump loads when the validator first needs it, not at import or Layer build: a server that
 * provides the Layer but has only Effect Schema inputs never loads it, and one with raw JSON
 * Schemas loads it at the first call that validates with one. Checked in a fresh Node
 * process (this one has hyperjump loaded by the other tests), which records every module it
 * resolves.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../../", import.meta.url))

const script = `
import { registerHooks } from "node:module"
const loaded = []
registerHooks({ resolve: (specifier, context, next) => { const resolved = next(specifier, context); loaded.push(resolved.url); return resolved } })
const hyperjump = () => loaded.some((url) => url.includes("/@hyperjump/"))
const steps = {}
const { Effect, Layer, Schema } = await import("effect")
const { McpServer, Tool } = await import("@snodo/core")
const { JsonSchemaValidator } = await import("@snodo/json-schema")
steps.imported = hyperjump()
const Text = Schema.Struct({ text: Schema.String })
const echo = Tool.make("echo", { description: "Echo", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))
const Validator = JsonSchemaValidator.layer()
await Effect.runPromise(Effect.scoped(Layer.build(McpServer.make({ name: "lazy", version: "1.0.0" }).add(echo).layer.pipe(Layer.provide(Validator)))))
steps.built = hyperjump()
const raw = Tool.make("raw", { description: "Raw", inputSchema: { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] } }, () => Effect.succeed("ok"))
await Effect.runPromise(Effect.scoped(Layer.build(McpServer.make({ name: "lazy", version: "1.0.0" }).add(raw).layer.pipe(Layer.provide(Validator)))))
steps.builtRaw = hyperjump()
const validator = await Effect.runPromise(JsonSchemaValidator.make())
steps.made = hyperjump()
const compiled = await Effect.runPromise(validator.compile({ type: "string", minLength: 2 }))
steps.compiled = hyperjump()
steps.validates = compiled.validate("a")._tag
process.stdout.write(JSON.stringify(steps))
`

describe("loading hyperjump", () => {
  it("waits for the first raw JSON Schema to compile, not for a catalog that has one", () => {
    const run = spawnSync(process.execPath, ["--conditions=@snodo/source", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000
    })
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "")).toEqual({ imported: false, built: false, builtRaw: false, made: false, compiled: true, validates: "Invalid" })
  })
})
