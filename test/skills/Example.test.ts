/**
 * examples/12-skills as a real child process over stdio, driven by the official MCP client 2.4.0
 * and its Skills host (`SkillsClient`, which verifies every file's size and digest and each
 * SKILL.md's frontmatter against the entry). The skills are a copy in a temporary folder, so the
 * test can change one and reload; a broken skill stops the server at start with its message.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnServer } from "../support/StdioProcess.ts"
import { sourceCondition } from "../support/Sources.ts"

const example = "examples/12-skills/main.ts"
const directory = mkdtempSync(join(tmpdir(), "snodo-skills-example-"))
cpSync("examples/12-skills/skills", directory, { recursive: true })

let client: Client
let skills: SkillsClient

beforeAll(async () => {
  client = new Client({ name: "snodo-skills-e2e", version: "0.1.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [sourceCondition, example, "--skills", directory], stderr: "pipe" }))
  skills = new SkillsClient(client)
})

afterAll(async () => {
  await client?.close()
  rmSync(directory, { recursive: true, force: true })
})

describe("examples/12-skills with the official Skills client", () => {
  it("declares the extension with directoryRead", () => {
    expect(skills.supported).toBe(true)
    expect(skills.directoryRead).toBe(true)
  })

  it("lists the skills and reads every file of each, verified against the entry", async () => {
    const listing = await skills.list()
    expect(listing.invalid).toEqual([])
    expect(listing.skills.map((skill) => skill.uri)).toEqual(["skill://ops/incident-response/SKILL.md", "skill://release-notes/SKILL.md"])
    expect(listing).toMatchObject({ ttlMs: 0, cacheScope: "private" })
    const notes = listing.skills[1]!
    expect(notes.frontmatter).toEqual({
      name: "release-notes",
      description: "Write release notes from merged pull requests, in this project's voice",
      license: "MIT",
      metadata: { audience: "users" }
    })
    for (const skill of listing.skills) {
      if (skill.resources === "dynamic") throw new Error("expected a file list")
      for (const file of skill.resources) {
        const read = await skills.read(skill, file.uri)
        expect(read.verified).toBe(true)
        expect(read.bytes.byteLength).toBe(file.size)
      }
    }
    const manifest = await skills.read(notes)
    expect(manifest.frontmatter).toEqual(notes.frontmatter)
    expect(manifest.body).toContain("templates/entry.md")
    const entry = await skills.read(notes, "templates/entry.md")
    expect(entry.text).toContain("{title}")
  })

  it("gets one skill by URI, and refuses a URI it does not serve", async () => {
    const { skill, ttlMs, cacheScope } = await skills.get("skill://ops/incident-response/SKILL.md")
    expect(skill.frontmatter.name).toBe("incident-response")
    expect({ ttlMs, cacheScope }).toEqual({ ttlMs: 0, cacheScope: "private" })
    await expect(skills.get("skill://ops/SKILL.md")).rejects.toMatchObject({ code: -32602 })
  })

  it("walks a skill's folders with resources/directory/read", async () => {
    const root = await skills.readDirectory("skill://release-notes")
    expect(root.resources.map((child) => [child.name, child.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["templates", "inode/directory"]
    ])
    const templates = await skills.readDirectory("skill://release-notes/templates")
    expect(templates.resources.map((child) => child.uri)).toEqual(["skill://release-notes/templates/entry.md", "skill://release-notes/templates/page.md"])
    await expect(skills.readDirectory("skill://release-notes/SKILL.md")).rejects.toMatchObject({ code: -32602 })
  })

  it("reloads a changed skill: the new digest is served, the old entry no longer verifies", async () => {
    const before = (await skills.get("skill://release-notes/SKILL.md")).skill
    writeFileSync(join(directory, "release-notes/templates/entry.md"), "- {title}: {summary} (#{number})\n")
    const reloaded = await client.callTool({ name: "reload_skills", arguments: {} })
    expect(reloaded.structuredContent).toEqual({ added: [], removed: [], changed: ["skill://release-notes/SKILL.md"] })
    // the file changed under the old entry: its size (checked first) and digest no longer match
    await expect(skills.read(before, "templates/entry.md")).rejects.toMatchObject({ name: "SkillVerificationError", reason: "size" })
    const after = (await skills.get("skill://release-notes/SKILL.md")).skill
    expect((await skills.read(after, "templates/entry.md")).text).toContain("{summary}")
  })
})

describe("examples/12-skills with a broken skill", () => {
  it("refuses to start, naming the file and the rule", async () => {
    const broken = mkdtempSync(join(tmpdir(), "snodo-skills-broken-"))
    try {
      cpSync("examples/12-skills/skills", broken, { recursive: true })
      writeFileSync(join(broken, "release-notes/SKILL.md"), "---\nname: Release Notes\ndescription: x\n---\n")
      const server = spawnServer([sourceCondition, example, "--skills", broken])
      const exit = await server.exited
      expect(exit.code).not.toBe(0)
      expect(server.stderr()).toMatch(/SkillsError: skills: release-notes\/SKILL\.md: name .*Release Notes.* breaks the naming rules/)
      expect(server.lines()).toEqual([])
    } finally {
      rmSync(broken, { recursive: true, force: true })
    }
  })
})
