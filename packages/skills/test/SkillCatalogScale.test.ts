/**
 * Loading at scale (issue 38, S1 and S2): 10,000 skills, the documented maximum, build off the
 * request path (a reload never holds the event loop long; requests read the old snapshot until
 * the new one swaps in whole), and a skill directory's byte bound is checked from each file's size
 * before the file is read (a 1.9 GB sparse file costs no memory; measured in a child process).
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "@effect/vitest"
import * as SkillCatalog from "@snodo/skills/SkillCatalog"
import * as SkillSource from "@snodo/skills/SkillSource"
import { Effect } from "effect"

const MiB = 1024 * 1024

const skills = (count: number, description: string): SkillSource.Values => {
  const values: Record<string, string> = {}
  for (let index = 0; index < count; index++) {
    const name = `skill-${index}`
    values[`${name}/SKILL.md`] = `---\nname: ${name}\ndescription: ${description} ${index}\n---\n# ${name}\n`
    if (index % 10 === 0) values[`${name}/references/guide.md`] = `# Guide ${index}\n`
  }
  return values
}

describe("SkillCatalog at scale", () => {
  it.effect("10,000 skills load, and every request during a reload answers from a whole snapshot", () =>
    Effect.gen(function*() {
      const source = SkillSource.makeMemory(skills(10_000, "First edition"))
      const catalog = yield* SkillCatalog.make().pipe(Effect.provideService(SkillSource.SkillSource, source))
      const first = catalog.snapshot()
      expect(first.skills.items).toHaveLength(10_000)
      expect(first.directories.get("skill://skill-10/references")?.items.map((entry) => entry.uri)).toEqual(["skill://skill-10/references/guide.md"])

      yield* source.replace(skills(10_000, "Second edition"))
      // A request every 5 ms while the reload builds: each reads one snapshot, old or new, never
      // a mix; the longest wait between two of them says whether the build held the event loop.
      const seen: Array<string> = []
      let longest = 0
      let last = performance.now()
      const timer = setInterval(() => {
        const now = performance.now()
        longest = Math.max(longest, now - last)
        last = now
        const snapshot = catalog.snapshot()
        const edition = (uri: string) => String(snapshot.byUri.get(uri)?.frontmatter.description).split(" ")[0]
        seen.push(`${edition("skill://skill-0/SKILL.md")}/${edition("skill://skill-9999/SKILL.md")}`)
      }, 5)
      const changes = yield* catalog.reload.pipe(
        // One more tick after the reload, so that a stall at its very end is counted too.
        Effect.andThen((reloaded) => Effect.as(Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10))), reloaded)),
        Effect.ensuring(Effect.sync(() => clearInterval(timer)))
      )

      console.info(`reload of 10,000 skills: ${seen.length} requests answered during it, the longest wait between two ${longest.toFixed(0)} ms`)
      expect(changes.changed).toHaveLength(10_000)
      expect(catalog.snapshot().byUri.get("skill://skill-9999/SKILL.md")?.frontmatter.description).toBe("Second edition 9999")
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((pair) => pair === "First/First" || pair === "Second/Second")).toBe(true)
      // The build yields every few milliseconds; 1 s leaves room for a loaded 2-core machine
      // (a build that holds the loop, as before, stalls for the whole build: seconds).
      expect(longest).toBeLessThan(1_000)
    }), 60_000)

  it("refuses a 1.9 GB sparse file from its size, without reading it (peak RSS within 64 MiB of idle)", async () => {
    const root = mkdtempSync(join(tmpdir(), "snodo-skills-sparse-"))
    try {
      mkdirSync(join(root, "big"))
      writeFileSync(join(root, "big/SKILL.md"), "---\nname: big\ndescription: A skill with a huge file\n---\n")
      await promisify(execFile)("truncate", ["-s", "1900M", join(root, "big/huge.bin")])
      const { stdout } = await promisify(execFile)(process.execPath, [join(import.meta.dirname, "fixtures/loadSkills.ts"), root], {
        timeout: 60_000,
        maxBuffer: MiB
      })
      const report = JSON.parse(stdout) as { outcome: Record<string, unknown>; idleRss: number; peakRss: number }
      expect(report.peakRss - report.idleRss).toBeLessThanOrEqual(64 * MiB)
      expect(report.outcome).toEqual({
        reason: "Limit",
        path: "big/huge.bin",
        message: expect.stringMatching(/^skills: big\/huge\.bin: 1992294400 bytes would take the directory past its 67108864 bytes$/)
      })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 90_000)
})
