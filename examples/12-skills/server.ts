/**
 * A server that publishes agent skills (the Skills extension, SEP-2640) from a folder on disk, and
 * a tool that reloads them.
 *
 * Each folder under `./skills` with a `SKILL.md` is a skill: `skills/release-notes` is
 * `skill://release-notes/SKILL.md`, `skills/ops/incident-response` is
 * `skill://ops/incident-response/SKILL.md` (`ops` is an organisational prefix). The skills are
 * checked when the server starts: a broken one stops it with a message naming the file.
 */
import { fileURLToPath } from "node:url"
import { McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Skills from "@snodo/skills"
import { Effect, Layer, Schema } from "effect"

/** The skills shipped with the example. */
export const defaultDirectory = fileURLToPath(new URL("skills", import.meta.url))

/** Reads the folder again; clients listening for resource changes are told what changed. */
export const reloadSkills = Tool.make("reload_skills", {
  description: "Reloads the skills from disk and says what changed",
  input: Schema.Struct({}),
  output: Schema.Struct({
    added: Schema.Array(Schema.String),
    removed: Schema.Array(Schema.String),
    changed: Schema.Array(Schema.String)
  })
}, () =>
  Effect.gen(function*() {
    const catalog = yield* Skills.SkillCatalog.SkillCatalog
    const { added, changed, removed } = yield* catalog.reload.pipe(Effect.orDie)
    return { added, removed, changed }
  }))

export const Server = McpServer.make({
  name: "skills-example",
  version: "1.0.0",
  instructions: "Skills for release notes and incident response: skills/list enumerates them."
}).add(reloadSkills).pipe(Skills.serve({ directoryRead: true }))

/** The runtime serving the skills of `directory`, with listen streams. */
export const runtimeFor = (directory: string) =>
  Server.layer.pipe(
    Layer.provideMerge(Skills.SkillCatalog.layer()),
    Layer.provide(Skills.NodeSkillSource.layer(directory)),
    Layer.provide(SubscriptionHub.layerMemory())
  )
