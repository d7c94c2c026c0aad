/**
 * Loading skills: every rule of the specification is checked at load and fails the Layer with a
 * typed SkillsError naming the file; sources in memory and on a real directory; reload.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as NodeSkillSource from "@snodo/skills/NodeSkillSource"
import * as Skill from "@snodo/skills/Skill"
import * as SkillCatalog from "@snodo/skills/SkillCatalog"
import * as SkillSource from "@snodo/skills/SkillSource"
import type { SkillsError } from "@snodo/skills/SkillsError"
import { Effect, Layer } from "effect"

const manifest = (name: string, extra = "") => `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n# ${name}\n`

/** The error a catalog Layer over these files fails with. */
const refusal = (values: SkillSource.Values, options?: SkillCatalog.Options) =>
  Layer.build(SkillCatalog.layer(options).pipe(Layer.provide(SkillSource.layerMemory(values)))).pipe(
    Effect.scoped,
    Effect.flip
  )

const loaded = (values: SkillSource.Values, options?: SkillCatalog.Options) =>
  Effect.map(SkillCatalog.build(SkillSource.makeMemory(values).files.pipe(Effect.runSync), options), (snapshot) => snapshot)

const expectRefused = (error: SkillsError, reason: SkillsError["reason"], path: string, message: RegExp) => {
  expect(error._tag).toBe("SkillsError")
  expect(error.reason).toBe(reason)
  expect(error.path).toBe(path)
  expect(error.message).toMatch(message)
}

describe("SkillCatalog", () => {
  it.effect("builds entries with verbatim frontmatter, digests and sizes, directories and the listed SKILL.md", () =>
    Effect.gen(function*() {
      const body = manifest("pdf-processing", "license: MIT\nmetadata:\n  version: \"2.1.0\"\n  tags: [a, b]\n")
      const snapshot = yield* loaded({
        "pdf-processing/SKILL.md": body,
        "pdf-processing/templates/invoice.md": "# Invoice\n",
        "pdf-processing/templates/regional/eu.md": "# EU\n",
        "pdf-processing/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]),
        "README.md": "not part of any skill"
      })
      const [entry] = snapshot.skills.items
      expect(entry).toEqual({
        uri: "skill://pdf-processing/SKILL.md",
        frontmatter: { name: "pdf-processing", description: "The pdf-processing skill", license: "MIT", metadata: { version: "2.1.0", tags: ["a", "b"] } },
        resources: [
          { uri: "skill://pdf-processing/SKILL.md", digest: Skill.digestOf(new TextEncoder().encode(body)), size: Buffer.byteLength(body) },
          { uri: "skill://pdf-processing/logo.png", digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: 6 },
          { uri: "skill://pdf-processing/templates/invoice.md", digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: 10 },
          { uri: "skill://pdf-processing/templates/regional/eu.md", digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: 5 }
        ]
      })
      expect(snapshot.files.has("skill://README.md")).toBe(false)
      expect(snapshot.files.get("skill://pdf-processing/logo.png")).toMatchObject({ mimeType: "image/png", text: undefined })
      expect(snapshot.directories.get("skill://pdf-processing")?.items).toEqual([
        { uri: "skill://pdf-processing/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: Buffer.byteLength(body) },
        { uri: "skill://pdf-processing/logo.png", name: "logo.png", mimeType: "image/png", size: 6 },
        { uri: "skill://pdf-processing/templates", name: "templates", mimeType: "inode/directory" }
      ])
      expect(snapshot.directories.get("skill://pdf-processing/templates")?.items.map((child) => child.uri)).toEqual([
        "skill://pdf-processing/templates/invoice.md",
        "skill://pdf-processing/templates/regional"
      ])
      expect(snapshot.listed).toEqual([{
        uri: "skill://pdf-processing/SKILL.md",
        name: "pdf-processing",
        description: "The pdf-processing skill",
        mimeType: "text/markdown",
        size: Buffer.byteLength(body)
      }])
    }))

  it.effect("serves nested skills and prefixes: the enclosing skill lists the nested one's files too", () =>
    Effect.gen(function*() {
      const snapshot = yield* loaded({
        "billing/SKILL.md": manifest("billing"),
        "billing/refunds/SKILL.md": manifest("refunds"),
        "billing/refunds/email.md": "Dear customer"
      }, { prefix: "acme" })
      expect(snapshot.skills.items.map((skill) => skill.uri)).toEqual(["skill://acme/billing/SKILL.md", "skill://acme/billing/refunds/SKILL.md"])
      expect(snapshot.byUri.get("skill://acme/billing/SKILL.md")?.resources.map((file) => file.uri)).toEqual([
        "skill://acme/billing/SKILL.md",
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/billing/refunds/email.md"
      ])
    }))

  it.effect("refuses frontmatter that is missing, unclosed, not plain data or incomplete", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, RegExp]> = [
        ["# no frontmatter\n", /must begin with YAML frontmatter/],
        ["---\nname: a\ndescription: b\n", /not closed/],
        ["---\nname: a\ndescription: !!js/function 'function () { return 1 }'\n---\n", /not valid YAML/],
        ["---\nname: a\nname: a\ndescription: b\n---\n", /not valid YAML/],
        ["---\n- a\n- b\n---\n", /must be a YAML mapping/],
        ["---\nname: a\n---\n", /has no description/],
        ["---\ndescription: b\n---\n", /has no name/],
        ["---\nname: a\ndescription: b\nlimit: .inf\n---\n", /not a finite number/],
        [`---\nname: a\ndescription: ${"x".repeat(1025)}\n---\n`, /longer than 1024/],
        ["---\nname: a\ndescription: b\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n", /reserved for MCP extensions/]
      ]
      for (const [text, message] of cases) {
        expectRefused(yield* refusal({ "a/SKILL.md": text }), "Frontmatter", "a/SKILL.md", message)
      }
    }))

  it.effect("refuses names that break the rules or differ from their folder, and paths that cannot be served", () =>
    Effect.gen(function*() {
      expectRefused(yield* refusal({ "bad--name/SKILL.md": manifest("bad--name") }), "Name", "bad--name/SKILL.md", /naming rules/)
      expectRefused(yield* refusal({ "x/Shout/SKILL.md": manifest("Shout") }), "Name", "x/Shout/SKILL.md", /naming rules/)
      expectRefused(yield* refusal({ "-x/SKILL.md": manifest("-x") }), "Name", "-x/SKILL.md", /naming rules/)
      expectRefused(yield* refusal({ [`${"a".repeat(65)}/SKILL.md`]: manifest("a".repeat(65)) }), "Name", `${"a".repeat(65)}/SKILL.md`, /naming rules/)
      expectRefused(yield* refusal({ "folder/SKILL.md": manifest("other") }), "Name", "folder/SKILL.md", /differs from its folder "folder"/)
      expectRefused(yield* refusal({ "SKILL.md": manifest("root") }), "Layout", "SKILL.md", /root of the source/)
      expectRefused(yield* refusal({ "a/../b/SKILL.md": manifest("b") }), "Layout", "a/../b/SKILL.md", /\.\. segments/)
      expectRefused(yield* refusal({ "a/with space.md": "x", "a/SKILL.md": manifest("a") }), "Layout", "a/with space.md", /not a valid URI path segment/)
      expectRefused(yield* refusal({ "Acme/a/SKILL.md": manifest("a") }), "Layout", "Acme", /authority/)
    }))

  it.effect("enforces the limits: 512 files and 16 MiB per skill by default, and the configured ones", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = { "big/SKILL.md": manifest("big") }
      for (let index = 0; index < 511; index++) files[`big/files/${index}.txt`] = "x"
      // 512 files, SKILL.md included: at the limit
      expect((yield* loaded(files)).skills.items[0]?.resources).toHaveLength(512)
      files["big/files/one-more.txt"] = "x"
      expectRefused(yield* refusal(files), "Limit", "big", /513 files, more than the 512 allowed/)

      const heavy = { "heavy/SKILL.md": manifest("heavy"), "heavy/blob.bin": new Uint8Array(Skill.limits.bytes) }
      expectRefused(yield* refusal(heavy), "Limit", "heavy", /more than the 16777216 allowed per skill/)

      const small = { "s/SKILL.md": manifest("s"), "s/a.txt": "a", "s/b.txt": "b" }
      expectRefused(yield* refusal(small, { maxFilesPerSkill: 2 }), "Limit", "s", /3 files, more than the 2 allowed/)
      expectRefused(yield* refusal(small, { maxBytesPerSkill: 10 }), "Limit", "s", /bytes, more than the 10 allowed/)
      expectRefused(yield* refusal({ "a/SKILL.md": manifest("a"), "b/SKILL.md": manifest("b") }, { maxSkills: 1 }), "Limit", "", /more than 1 skills/)
    }))

  it.effect("reload swaps the snapshot and reports what changed; a failed reload keeps the old one", () =>
    Effect.gen(function*() {
      const source = SkillSource.makeMemory({ "a/SKILL.md": manifest("a"), "a/notes.md": "one", "b/SKILL.md": manifest("b") })
      const catalog = yield* SkillCatalog.make().pipe(Effect.provideService(SkillSource.SkillSource, source))
      yield* source.replace({ "a/SKILL.md": manifest("a"), "a/notes.md": "two", "c/SKILL.md": manifest("c") })
      expect(yield* catalog.reload).toEqual({
        added: ["skill://c/SKILL.md"],
        removed: ["skill://b/SKILL.md"],
        changed: ["skill://a/SKILL.md"],
        updated: ["skill://a/notes.md", "skill://b/SKILL.md"],
        listChanged: true
      })
      yield* source.replace({ "a/SKILL.md": manifest("a"), "a/notes.md": "three", "c/SKILL.md": manifest("c") })
      expect((yield* catalog.reload).listChanged).toBe(false)
      yield* source.replace({ "a/SKILL.md": "broken" })
      expectRefused(yield* Effect.flip(catalog.reload), "Frontmatter", "a/SKILL.md", /frontmatter/)
      expect(catalog.snapshot().skills.items.map((skill) => skill.uri)).toEqual(["skill://a/SKILL.md", "skill://c/SKILL.md"])
      expect(new TextDecoder().decode(catalog.snapshot().files.get("skill://a/notes.md")?.bytes)).toBe("three")
    }))
})

describe("NodeSkillSource", () => {
  const withDirectory = (files: Readonly<Record<string, string>>) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const root = mkdtempSync(join(tmpdir(), "snodo-skills-"))
        for (const [path, text] of Object.entries(files)) {
          mkdirSync(dirname(join(root, path)), { recursive: true })
          writeFileSync(join(root, path), text)
        }
        return root
      }),
      (root) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
    )

  it.effect("reads a directory on disk, skipping dotfiles, and re-reads it on reload", () =>
    Effect.gen(function*() {
      const root = yield* withDirectory({ "git/SKILL.md": manifest("git"), "git/.env": "SECRET=1", ".git/config": "x", "git/ref/a.md": "a" })
      const catalog = yield* SkillCatalog.make().pipe(Effect.provideService(SkillSource.SkillSource, NodeSkillSource.make(root)))
      expect(catalog.snapshot().skills.items[0]?.resources.map((file) => file.uri)).toEqual(["skill://git/SKILL.md", "skill://git/ref/a.md"])
      writeFileSync(join(root, "git/ref/b.md"), "b")
      const changes = yield* catalog.reload
      expect(changes).toMatchObject({ changed: ["skill://git/SKILL.md"], listChanged: false })
      expect(catalog.snapshot().files.has("skill://git/ref/b.md")).toBe(true)
    }).pipe(Effect.scoped))

  it.effect("fails the Layer on a symbolic link, a missing directory, or more bytes than allowed", () =>
    Effect.gen(function*() {
      const root = yield* withDirectory({ "git/SKILL.md": manifest("git"), "outside.txt": "secret" })
      symlinkSync(join(root, "outside.txt"), join(root, "git/link.txt"))
      const layerOf = (path: string, options?: NodeSkillSource.Options) =>
        Layer.build(SkillCatalog.layer().pipe(Layer.provide(NodeSkillSource.layer(path, options)))).pipe(Effect.scoped, Effect.flip)
      expectRefused(yield* layerOf(root), "Source", "git/link.txt", /symbolic links are not served/)
      expectRefused(yield* layerOf(join(root, "missing")), "Source", "", /cannot read/)
      rmSync(join(root, "git/link.txt"))
      expectRefused(yield* layerOf(root, { maxBytes: 10 }), "Limit", "git/SKILL.md", /bytes would take the directory past its 10 bytes/)
    }).pipe(Effect.scoped))
})
