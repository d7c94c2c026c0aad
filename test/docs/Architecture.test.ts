/** docs/architecture.md names modules that exist, and lists every module of each floor's public barrels. */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")
const text = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8")

describe("docs/architecture.md", () => {
  it("every source path it names exists", () => {
    const named = [...text.matchAll(/`((?:core|http|tasks|skills|oauth|testing)\/src\/[A-Za-z0-9_/]+\.ts|test\/[A-Za-z0-9_/]+\.ts)`/g)].map((match) => match[1]!)
    expect(named.length).toBeGreaterThan(30)
    const missing = named.filter((file) => !fs.existsSync(path.join(root, file.startsWith("test/") ? file : `packages/${file}`)))
    expect(missing).toEqual([])
  })

  it("its public-surface table lists every module of @snodo/core's entry points", () => {
    for (const entry of ["index", "extension", "dialect", "transport"]) {
      const barrel = fs.readFileSync(path.join(root, "packages/core/src", `${entry}.ts`), "utf8")
      const modules = [...barrel.matchAll(/export (?:\* as (\w+)|\{ (\w+) \})/g)].map((match) => match[1] ?? match[2]!)
      expect(modules.length).toBeGreaterThan(5)
      for (const module of modules) expect(text, `${entry}: ${module}`).toContain(`\`${module}\``)
    }
  })
})
