/** The frontmatter of SKILL.md: YAML 1.2 core-schema data, never evaluated. */
import { describe, expect, it } from "vitest"
import * as Frontmatter from "@snodo/skills/Frontmatter"
import { parse as parseYaml } from "yaml"

describe("Frontmatter.parse", () => {
  it("reads the block between the --- lines, with a BOM, CRLF line ends or trailing spaces", () => {
    const expected = { name: "a", description: "b" }
    expect(Frontmatter.parse("---\nname: a\ndescription: b\n---\n# Body")).toEqual(expected)
    expect(Frontmatter.parse("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nbody")).toEqual(expected)
    expect(Frontmatter.parse("--- \nname: a\ndescription: b\n---  ")).toEqual(expected)
    // a later --- line in the body is body
    expect(Frontmatter.parse("---\nname: a\ndescription: b\n---\nx\n---\ny")).toEqual(expected)
  })

  it("keeps every field verbatim as JSON, with the core schema's types (no timestamps, no YAML 1.1 booleans)", () => {
    const parsed = Frontmatter.parse([
      "---",
      "name: a",
      "description: >-",
      "  folded",
      "  text",
      "version: 1.10",
      "released: 2026-07-28",
      "draft: no",
      "flag: true",
      "nothing: ~",
      "tags: [x, \"y\"]",
      "metadata: { owner: ops, io.modelcontextprotocol.skills/x: 1 }",
      "---"
    ].join("\n"))
    expect(parsed).toEqual({
      name: "a",
      description: "folded text",
      version: 1.1,
      released: "2026-07-28",
      draft: "no",
      flag: true,
      nothing: null,
      tags: ["x", "y"],
      metadata: { owner: "ops", "io.modelcontextprotocol.skills/x": 1 }
    })
  })

  it("refuses what is not plain data: tags, too many aliases, an empty block", () => {
    expect(Frontmatter.parse("---\nname: a\ndescription: !!binary aGk=\n---\n")).toMatch(/frontmatter.description is not plain data/)
    expect(Frontmatter.parse("---\nname: a\ndescription: !custom x\n---\n")).toMatch(/not valid YAML/)
    const bomb = ["---", "name: a", "description: b", "a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for (let level = 1; level < 6; level++) bomb.push(`l${level}: &l${level} [${Array(10).fill(level === 1 ? "*a" : `*l${level - 1}`).join(", ")}]`)
    expect(Frontmatter.parse([...bomb, "---"].join("\n"))).toMatch(/not valid YAML/)
    expect(Frontmatter.parse("---\n---\n")).toMatch(/must be a YAML mapping/)
    expect(Frontmatter.parse(`---\nname: a\ndescription: b\nx: "${"y".repeat(Frontmatter.maxLength)}"\n---\n`)).toMatch(/longer than/)
  })

  it("reads plain key: value lines as the YAML parser does (the fast path agrees with it)", () => {
    const blocks = [
      "name: pdf-processing\ndescription: Extract text and fill forms in PDF files",
      "name: a\ndescription: Uses (parentheses), commas; it's fine/ok & done!",
      "name: a\ndescription:    spaced out value\nlicense: Apache-2.0",
      "name: a\ndescription: v1.2 is current. Ends with a dot.",
      // not plain: the YAML parser decides (booleans, null, comments, colons, quotes, duplicates)
      "name: a\ndescription: b\nenabled: true",
      "name: a\ndescription: b\nextra: Null",
      "name: a\ndescription: before # a comment",
      "name: a\ndescription: 'quoted: text'",
      "name: a\ndescription: b\nversion: 12",
      "name: a\ndescription: b\nname: a"
    ]
    for (const block of blocks) {
      let expected: unknown
      try {
        expected = parseYaml(block, { version: "1.2", schema: "core", uniqueKeys: true })
      } catch {
        expected = undefined
      }
      const parsed = Frontmatter.parse(`---\n${block}\n---\n`)
      if (expected === undefined) expect(typeof parsed).toBe("string")
      else expect(parsed).toEqual(expected)
    }
  })
})
