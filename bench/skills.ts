/**
 * Skills at scale: loads 10,000 skills (the documented maximum) from a directory on disk with
 * `NodeSkillSource` and `SkillCatalog`, then reloads them while a timer ticks every millisecond,
 * and prints the load's wall and CPU time and the longest the event loop was held during the
 * reload (what a request waits at worst).
 *
 *   npx node bench/skills.ts              # 10,000 skills, one SKILL.md each, every tenth with a reference
 *   npx node bench/skills.ts --skills 5000
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import * as NodeSkillSource from "@snodo/skills/NodeSkillSource"
import * as SkillCatalog from "@snodo/skills/SkillCatalog"
import * as SkillSource from "@snodo/skills/SkillSource"
import * as Effect from "effect/Effect"

const { values } = parseArgs({ options: { skills: { type: "string", default: "10000" } } })
const count = Number(values.skills)
const root = mkdtempSync(join(tmpdir(), "snodo-bench-skills-"))
try {
  for (let index = 0; index < count; index++) {
    const name = `skill-${index}`
    mkdirSync(join(root, name))
    writeFileSync(join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: Skill number ${index} of the bench\n---\n# ${name}\n\nSteps.\n`)
    if (index % 10 === 0) {
      mkdirSync(join(root, name, "references"))
      writeFileSync(join(root, name, "references", "guide.md"), `# Guide ${index}\n`)
    }
  }
  const source = NodeSkillSource.make(root, { maxFiles: count * 2 })
  const wall = performance.now()
  const cpu = process.cpuUsage()
  const catalog = await Effect.runPromise(SkillCatalog.make().pipe(Effect.provideService(SkillSource.SkillSource, source)))
  const used = process.cpuUsage(cpu)
  const loadMs = performance.now() - wall
  let longest = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 1)
  const reloadStart = performance.now()
  await Effect.runPromise(catalog.reload)
  const reloadMs = performance.now() - reloadStart
  // One more tick, so that a stall at the very end of the reload is counted too.
  await new Promise((resolve) => setTimeout(resolve, 5))
  clearInterval(timer)
  console.log(JSON.stringify({
    skills: catalog.snapshot().skills.items.length,
    loadWallMs: Math.round(loadMs),
    loadCpuMs: Math.round((used.user + used.system) / 1000),
    reloadWallMs: Math.round(reloadMs),
    longestStallDuringReloadMs: Math.round(longest)
  }))
} finally {
  rmSync(root, { recursive: true, force: true })
}
