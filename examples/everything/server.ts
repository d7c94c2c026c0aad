/**
 * The everything server: every fixture of the official conformance suite for 2026-07-28 and
 * 2025-11-25, plus `echo`, `add` and `sleep`/`sleep_stats` of our own, and an MCP App (`./app.ts`:
 * `app_calculator` and its `ui://` view). `tools/list` order is fixed
 * (`test_simple_text` first: the suite calls `tools[0]` with empty arguments). It speaks both
 * dialects unless told otherwise (`dialects`).
 *
 * It serves the Skills extension too (`@snodo/skills`, SEP-2640): the skills of the folder
 * `./skills` (one nested under the prefix `acme/billing`, with a subfolder), with
 * `resources/directory/read`.
 *
 * `ServerLayer` is the runtime with the full JSON Schema 2020-12 validator (the
 * `json_schema_2020_12_tool` fixture uses `allOf`, `if`/`then`/`else` and `$ref`), tasks in memory
 * and an in-memory `SubscriptionHub` (listen streams, and the trigger tools that publish to them).
 * `ServerLayerWith(backend)` is the same on another backend (`./backend.ts`: SQLite, or PostgreSQL
 * shared by many instances, whose hub carries listen changes across them).
 */
import { fileURLToPath } from "node:url"
import * as McpServer from "@snodo/core/McpServer"
import * as SubscriptionHub from "@snodo/core/SubscriptionHub"
import * as Tool from "@snodo/core/Tool"
import type { BuiltInVersion } from "@snodo/core/McpServer"
import { JsonSchemaValidator } from "@snodo/json-schema"
import * as Skills from "@snodo/skills"
import * as Tasks from "@snodo/tasks"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as App from "./app.ts"
import type * as Backend from "./backend.ts"
import * as Asking from "./asking.ts"
import { jsonSchema202012Input } from "./fixtures.ts"
import * as Fixtures from "./resources.ts"
import * as Tools from "./tools.ts"
import * as Mrtr from "./mrtr.ts"
import * as TaskFixtures from "./tasks.ts"
import * as Triggers from "./triggers.ts"

const jsonSchemaTool = Tool.make("json_schema_2020_12_tool", {
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  inputSchema: jsonSchema202012Input
}, (args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`))

const xMcpHeader = Tool.make("test_x_mcp_header", {
  description: "Echoes a parameter mirrored into the Mcp-Param-Region header",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", description: "Region, mirrored as Mcp-Param-Region", "x-mcp-header": "Region" }
    },
    required: ["region"],
    additionalProperties: false
  }
}, (args) => Effect.succeed(`Region: ${String(args["region"])}`))

/** Settings of the Tasks extension besides its tool policies (runner timings, limits). */
export type TaskSettings = Omit<Tasks.Options, "tools">

/** The protocol revisions the everything server speaks by default: both. */
export const defaultDialects: ReadonlyArray<BuiltInVersion> = ["2026-07-28", "2025-11-25"]

/** The server definition, given the per-server `sleep` tools. */
export const makeServer = (
  sleepTools: Effect.Success<typeof Tools.makeSleepTools>,
  dialects: ReadonlyArray<BuiltInVersion> = defaultDialects,
  tasks: TaskSettings = {}
) =>
  McpServer.make({
    name: "snodo-everything",
    version: "0.1.0",
    description: "Every conformance fixture of MCP 2026-07-28 and 2025-11-25, served by snodo",
    instructions: "A test server: tools, resources and prompts named after the conformance fixtures.",
    logging: true,
    dialects
  }).add(
    Tools.simpleText,
    Tools.imageContent,
    Tools.audioContent,
    Tools.embeddedResource,
    Tools.multipleContentTypes,
    Tools.toolWithProgress,
    Tools.errorHandling,
    jsonSchemaTool,
    Tools.missingCapability,
    Tools.streamingElicitation,
    Tools.loggingTool,
    Tools.toolWithLogging,
    Triggers.toolChange,
    Triggers.promptChange,
    Triggers.resourceUpdate,
    xMcpHeader,
    ...Mrtr.tools,
    ...Asking.tools,
    Tools.echo,
    Tools.add,
    sleepTools.sleep,
    sleepTools.sleepStats,
    Fixtures.staticText,
    Fixtures.staticBinary,
    Fixtures.template,
    Fixtures.simplePrompt,
    Fixtures.promptWithArguments,
    Fixtures.promptWithEmbeddedResource,
    Fixtures.promptWithImage,
    Mrtr.prompt,
    ...TaskFixtures.tools,
    ...App.components
  ).extend(Tasks.extension({ ...tasks, tools: TaskFixtures.policies })).extend(App.extension).pipe(Skills.serve({ directoryRead: true }))

/** The skills the server serves (SEP-2640): the folder `./skills`, checked when the server starts. */
export const skillsDirectory = fileURLToPath(new URL("skills", import.meta.url))

/** The everything server's skills, loaded from {@link skillsDirectory}. */
export const SkillsLayer = Skills.SkillCatalog.layer().pipe(Layer.provide(Skills.NodeSkillSource.layer(skillsDirectory)))

/**
 * The everything runtime, validator included, on a backend for its tasks and listen streams
 * (`./backend.ts`), speaking `dialects` (default both).
 */
export const ServerLayerWith = <E, R>(
  backend: Layer.Layer<Backend.Services, E, R>,
  options: { readonly dialects?: ReadonlyArray<BuiltInVersion>; readonly tasks?: TaskSettings } = {}
) =>
  Layer.unwrap(Effect.map(Tools.makeSleepTools, (tools) => makeServer(tools, options.dialects ?? defaultDialects, options.tasks).layer)).pipe(
    Layer.provide(JsonSchemaValidator.layer()),
    Layer.provide(SkillsLayer),
    Layer.provide(backend)
  )

/** Tasks, their signals and listen streams in memory. */
export const memoryBackend = Layer.mergeAll(Tasks.TaskStore.layerMemory(), Tasks.TaskSignals.layerMemory(), SubscriptionHub.layerMemory())

/** The everything runtime with tasks in memory, speaking `dialects`. */
export const serverLayerFor = (dialects: ReadonlyArray<BuiltInVersion>) => ServerLayerWith(memoryBackend, { dialects })

/** The everything runtime with tasks in memory, speaking both dialects. */
export const ServerLayer = serverLayerFor(defaultDialects)

/** Schema of `sleep_stats` results, for tests. */
export const SleepStats = Schema.Struct({ started: Schema.Int, completed: Schema.Int, interrupted: Schema.Int })
