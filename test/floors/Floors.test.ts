import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { circlesOf, coreFloors, graphOf, packageImportsOf, protocolFloors, upwardImportsOf } from "../../scripts/floors.ts"

const packages = path.resolve(import.meta.dirname, "../../packages")
const core = path.join(packages, "core/src")

describe("the import check (scripts/floors.ts)", () => {
  it("finds a circle, a self-import and none in a chain", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
      ["e.ts", ["a.ts"]]
    ])
    expect(circlesOf(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["d.ts"]])
    expect(circlesOf(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toEqual([])
  })

  it("refuses an import up the floors and a module outside any floor", () => {
    const graph = new Map([
      [path.join("pipeline", "Json.ts"), [path.join("runtime", "Listen.ts")]],
      [path.join("runtime", "Listen.ts"), [path.join("pipeline", "Json.ts")]],
      [path.join("attic", "Old.ts"), []],
      ["index.ts", [path.join("server", "McpServer.ts")]]
    ])
    expect(upwardImportsOf(graph)).toEqual([
      `${path.join("pipeline", "Json.ts")} imports ${path.join("runtime", "Listen.ts")}, a floor above it`,
      `${path.join("attic", "Old.ts")} is in no declared floor (${coreFloors.join(", ")})`
    ])
  })

  it("reads type-only imports, re-exports and import() of the real core, which has no circle and respects its floors", () => {
    const graph = graphOf(core)
    expect(graph.get(path.join("routes", "Route.ts"))).toContain(path.join("routes", "Revision.ts"))
    expect(graph.get("dialect.ts")).toContain(path.join("dialects", "DialectRegistry.ts"))
    expect(circlesOf(graph)).toEqual([])
    expect(upwardImportsOf(graph)).toEqual([])
  })

  it("reads the real protocol, which respects its floors, and holds every package to the packages it may stand on", () => {
    const protocol = graphOf(path.join(packages, "protocol/src"))
    expect(protocol.get(path.join("peer", "Peer.ts"))).toContain(path.join("jsonrpc", "Envelope.ts"))
    expect(upwardImportsOf(protocol, protocolFloors)).toEqual([])
    expect(upwardImportsOf(new Map([[path.join("wire", "Tools.ts"), [path.join("peer", "Peer.ts")]]]), protocolFloors)).toEqual([
      `${path.join("wire", "Tools.ts")} imports ${path.join("peer", "Peer.ts")}, a floor above it`
    ])
    // the client stands on the protocol alone; core on nothing but the protocol
    expect(packageImportsOf("client", path.join(packages, "client/src"))).toEqual([])
    expect(packageImportsOf("core", path.join(packages, "core/src"))).toEqual([])
    // a package that imports what it may not (testing imports core, which the client may not)
    expect(packageImportsOf("client", path.join(packages, "testing/src")).some((problem) => problem.includes("@snodo/core"))).toBe(true)
  })
})
