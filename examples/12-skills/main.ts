/**
 * Agent skills over stdio:
 *
 *   npx node examples/12-skills/main.ts [--skills DIR]
 *
 * Serves the skills of `DIR` (default `examples/12-skills/skills`): `skills/list`, `skills/get`,
 * `resources/directory/read`, every file as a `skill://` resource, and the tool `reload_skills`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import { defaultDirectory, runtimeFor } from "./server.ts"

const at = process.argv.indexOf("--skills")
const directory = at >= 0 ? process.argv[at + 1] ?? defaultDirectory : defaultDirectory

StdioTransport.run().pipe(
  Effect.provide(runtimeFor(directory)),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
