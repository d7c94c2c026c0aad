/**
 * The official client `@modelcontextprotocol/client` 2.4.0 as a conformance client program, for
 * the comparison table in docs/client.md: the same scenarios as our `client.ts` runs beyond the
 * scored set (the 2025-11-25 client scenarios, `json-schema-2020-12-preservation`, the Skills
 * client scenarios), written as its README shows an application: `Client` with
 * `versionNegotiation: { mode: "auto" }` on a `StreamableHTTPClientTransport`, form elicitation
 * with `applyDefaults`, and its `SkillsClient` for the `sep-2640-client-*` scenarios.
 *
 *   npx conformance client --command "node test/conformance/official-client.ts" --scenario sse-retry
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills"

const url = process.argv.at(-1) ?? ""
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""

const client = new Client({ name: "official-conformance-client", version: "2.4.0" }, {
  capabilities: { elicitation: { form: { applyDefaults: true } } },
  versionNegotiation: { mode: "auto" }
})
client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: {} }))
await client.connect(new StreamableHTTPClientTransport(new URL(url)))

const valueFor = (schema: unknown): unknown => {
  const type = typeof schema === "object" && schema !== null ? (schema as Record<string, unknown>)["type"] : undefined
  return type === "number" || type === "integer" ? 1 : type === "boolean" ? true : type === "object" ? {} : type === "array" ? [] : "test"
}

if (scenario.startsWith("sep-2640-client-")) {
  const skills = new SkillsClient(client)
  const [first] = (await skills.list()).skills
  if (first !== undefined && scenario !== "sep-2640-client-no-prefetch") {
    try {
      await skills.read(first)
      for (const entry of first.resources) {
        const uri = typeof entry === "string" ? entry : entry.uri
        if (uri !== first.uri) await skills.read(first, uri)
      }
    } catch (error) {
      console.error(`${scenario}: ${String(error)}`)
    }
  }
} else {
  const { tools } = await client.listTools()
  const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool")
  const calls = focal !== undefined
    ? [{ name: "json_schema_echo", arguments: { schema: focal.inputSchema } }]
    : tools.map((tool) => ({
      name: tool.name,
      arguments: Object.fromEntries((tool.inputSchema.required ?? []).map((name) => [name, valueFor(tool.inputSchema.properties?.[name])]))
    }))
  for (const call of calls) {
    try {
      await client.callTool(call)
    } catch (error) {
      console.error(`${scenario}: ${call.name}: ${String(error)}`)
    }
  }
}
await client.close()
