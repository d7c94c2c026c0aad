/**
 * Validations per second for a typical tool input schema, compiled once: `@snodo/json-schema`
 * (hyperjump, with the per-call budget) against ajv's `Ajv2020` on the same schema and inputs, in
 * the same process and run (ajv with `allErrors`, since ours reports every issue of an invalid
 * input); the core's basic backend is shown for reference. Rounds alternate
 * between validators so that drift (JIT, CPU frequency) hits all of them alike; about 10 s in all.
 *
 *   npx node bench/json-schema.ts [--seconds 10]
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import type { JsonSchemaDocument } from "@snodo/core/SchemaValidator"
import { JsonSchemaValidator } from "@snodo/json-schema"

/** The input of a typical tool: a search with filters, paging and a nested options object. */
const schema: JsonSchemaDocument = {
  type: "object",
  required: ["query", "limit"],
  additionalProperties: false,
  properties: {
    query: { type: "string", minLength: 1, maxLength: 200, description: "What to search for" },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    cursor: { type: ["string", "null"], maxLength: 2048 },
    sort: { enum: ["relevance", "newest", "oldest"] },
    tags: { type: "array", items: { type: "string", pattern: "^[a-z0-9-]+$" }, maxItems: 10, uniqueItems: true },
    options: {
      type: "object",
      additionalProperties: false,
      properties: {
        includeArchived: { type: "boolean" },
        language: { type: "string", minLength: 2, maxLength: 8 },
        score: { type: "number", exclusiveMinimum: 0, maximum: 1 }
      }
    }
  }
}

const valid = {
  query: "effect layers and scopes",
  limit: 20,
  cursor: null,
  sort: "newest",
  tags: ["effect", "typescript", "mcp"],
  options: { includeArchived: false, language: "en", score: 0.5 }
}

const invalid = { query: "", limit: 500, tags: ["Not Valid", "effect"], options: { score: 0, extra: true } }

const secondsArgument = process.argv.indexOf("--seconds")
const totalSeconds = secondsArgument === -1 ? 10 : Number(process.argv[secondsArgument + 1])
const rounds = 5

type Validate = (instance: unknown) => boolean

const measure = (validate: Validate, instance: unknown, millis: number): number => {
  let count = 0
  const start = performance.now()
  let elapsed = 0
  // Batches of 1,000 keep the clock out of the measurement.
  while (elapsed < millis) {
    for (let index = 0; index < 1_000; index++) validate(instance)
    count += 1_000
    elapsed = performance.now() - start
  }
  return count / (elapsed / 1_000)
}

const program = Effect.gen(function*() {
  const full = yield* JsonSchemaValidator.make()
  const ours = yield* full.compile(schema)
  const basic = yield* BasicJsonSchema.make().compile(schema)
  // allErrors: like ours, report every issue of an invalid input rather than stop at the first.
  const ajvValidate = new Ajv2020({ allErrors: true, strict: false }).compile(schema as object)

  const validators: ReadonlyArray<readonly [name: string, validate: Validate]> = [
    ["@snodo/json-schema (hyperjump)", (instance) => ours.validate(instance)._tag === "Valid"],
    ["ajv Ajv2020", (instance) => ajvValidate(instance)],
    ["@snodo/core basic subset", (instance) => basic.validate(instance)._tag === "Valid"]
  ]
  for (const [name, validate] of validators) {
    if (!validate(valid) || validate(invalid)) throw new Error(`${name} disagrees on the bench inputs`)
  }

  const inputs = [["valid", valid], ["invalid", invalid]] as const
  const slice = (totalSeconds * 1_000) / (rounds * validators.length * inputs.length)
  const samples = new Map<string, Array<number>>()
  for (const [, validate] of validators) for (const [, value] of inputs) measure(validate, value, 50) // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, validate] of validators) {
      for (const [input, value] of inputs) {
        const key = `${name}\u0000${input}`
        samples.set(key, [...(samples.get(key) ?? []), measure(validate, value, slice)])
      }
    }
  }
  const median = (values: ReadonlyArray<number>) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!
  const rate = (name: string, input: string) => median(samples.get(`${name}\u0000${input}`)!)

  const lines = [`JSON Schema validation, typical tool input, compiled once (${totalSeconds} s, median of ${rounds} rounds)`]
  for (const [input] of inputs) {
    for (const [name] of validators) lines.push(`  ${input.padEnd(8)} ${name.padEnd(32)} ${rate(name, input).toFixed(0).padStart(12)} validations/s`)
    const ratio = rate("ajv Ajv2020", input) / rate("@snodo/json-schema (hyperjump)", input)
    lines.push(`  ${input.padEnd(8)} ratio ajv / @snodo/json-schema: ${ratio.toFixed(1)}x`)
  }
  process.stdout.write(`${lines.join("\n")}\n`)
})

Effect.runPromise(program).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
