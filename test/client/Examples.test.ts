/**
 * examples/10-client (a client of the everything server over stdio) and examples/11-agent (an
 * effect/ai language model, scripted, using the server's tools through AiToolkit) run as real
 * processes and print what they got.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { sourceCondition } from "../support/Sources.ts"

const run = (example: string): unknown => {
  const main = fileURLToPath(new URL(`../../examples/${example}/main.ts`, import.meta.url))
  const child = spawnSync(process.execPath, [sourceCondition, main], { encoding: "utf8", timeout: 60_000 })
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "null")
}

describe("the client examples", () => {
  it("10-client: lists, calls typed, answers an elicitation round", () => {
    expect(run("10-client")).toEqual({ era: "modern", tools: expect.any(Number), sum: 42, greeting: "Hello, Ada!" })
  }, 70_000)

  it("11-agent: the scripted model's tool call reaches the server through AiToolkit", () => {
    expect(run("11-agent")).toEqual({ toolResults: [{ tool: "add", result: { sum: 42 } }] })
  }, 70_000)
})
