/** docs/architecture.md names modules that exist, and lists every module of each floor's public barrels. */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")
const text = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8")

describe("docs/architecture.md", () => {
  it("every source path it names exists", () => {
    const named = [...text.matchAll(/`((?:protocol|core|http|tasks|skills|oauth|testing|client|postgres)\/src\/[A-Za-z0-9_/]+\.ts|test\/[A-Za-z0-9_/]+\.ts)`/g)].map((match) => match[1]!)
    expect(named.length).toBeGreaterThan(30)
    const missing = named.filter((file) => !fs.existsSync(path.join(root, file.startsWith("test/") ? file : `packages/${file}`)))
    expect(missing).toEqual([])
  })

  it("its public-surface table lists every module of @snodo/core's and @snodo/protocol's entry points", () => {
    for (const barrelPath of ["core/src/index", "core/src/extension", "core/src/dialect", "core/src/transport", "protocol/src/index"]) {
      const barrel = fs.readFileSync(path.join(root, "packages", `${barrelPath}.ts`), "utf8")
      const modules = [...barrel.matchAll(/export (?:\* as (\w+)|\{ (\w+) \})/g)].map((match) => match[1] ?? match[2]!)
      expect(modules.length).toBeGreaterThan(3)
      for (const module of modules) expect(text, `${barrelPath}: ${module}`).toContain(`\`${module}\``)
    }
  })
})
