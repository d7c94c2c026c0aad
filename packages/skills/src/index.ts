/**
 * @snodo/skills: the MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) for snodo
 * servers.
 *
 * `Skills.serve(options)` adds it to a server; a `SkillCatalog` Layer loads the skills from a
 * `SkillSource` (`NodeSkillSource.layer(dir)` on disk, `SkillSource.layerMemory(values)` in
 * memory), checks them once and fails with a `SkillsError` naming the file when a rule is broken.
 *
 * @since 0.1.0
 */
export { extension, files, name, type Options, serve, uriTemplate } from "./Skills.ts"
export * as Frontmatter from "./Frontmatter.ts"
export * as NodeSkillSource from "./NodeSkillSource.ts"
export * as Skill from "./Skill.ts"
export * as SkillCatalog from "./SkillCatalog.ts"
export * as SkillSource from "./SkillSource.ts"
export * as SkillsError from "./SkillsError.ts"
