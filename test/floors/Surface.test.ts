import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { declarationsOf, publicModulesOf, surfaceOf } from "../../scripts/surface.ts"

const packages = path.resolve(import.meta.dirname, "../../packages")

describe("the public surface (scripts/surface.ts)", () => {
  it("counts export statements, overloads and listed names, not a barrel's namespaces", () => {
    const text = [
      "export const a = 1",
      "export function f(): void",
      "export function f(x?: number): void {}",
      "export interface I {}",
      "export type { B, C } from \"./b.ts\"",
      "export * as D from \"./d.ts\"",
      "const hidden = 2"
    ].join("\n")
    expect(declarationsOf(text)).toBe(6)
  })

  it("keeps core at half the 728 declarations it exported before internal/ (issue 34)", () => {
    const surface = surfaceOf(path.join(packages, "core"))
    const total = surface.reduce((sum, module) => sum + module.declarations, 0)
    expect(total).toBeLessThanOrEqual(364)
    // What moved under internal/ is not in the exports map.
    const files = publicModulesOf(path.join(packages, "core")).map((file) => path.relative(packages, file))
    expect(files.filter((file) => file.split(path.sep).includes("internal"))).toEqual([])
    expect(files).toContain(path.join("core", "src", "catalog", "Tool.ts"))
  })

  it("has no public module of any package re-export a whole internal module", () => {
    const reexports = fs.readdirSync(packages).flatMap((name) =>
      publicModulesOf(path.join(packages, name)).flatMap((file) =>
        [...fs.readFileSync(file, "utf8").matchAll(/^export \* (?:as \w+ )?from "(\.[^"]*\/internal\/[^"]*)"/gm)].map((match) => `${path.relative(packages, file)} → ${match[1]}`)
      )
    )
    expect(reexports).toEqual([])
  })
})
