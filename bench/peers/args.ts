/**
 * Command line of every peer server: `--stdio`, or `--http --port N` (loopback only), and
 * `--tools echo|list|listen` (`list`: the 100-tool catalog of the tools/list scenario; `listen`: `echo` and
 * `publish`, a tool that publishes one `notifications/tools/list_changed` to every open listen stream).
 */

/** How many tools the list scenario advertises (one page for every peer: snodo pages at 100). */
export const listToolCount = 100

/** The names of the list catalog: `echo` first, then `tool_001`…`tool_099`. */
export const listToolNames: ReadonlyArray<string> = [
  "echo",
  ...Array.from({ length: listToolCount - 1 }, (_, index) => `tool_${String(index + 1).padStart(3, "0")}`)
]

/** The description of a list tool, as every peer writes it. */
export const toolDescription = (name: string): string =>
  name === "echo" ? "Echoes its text back as structured content" : `Bench tool ${name}`

/**
 * The `tools/list` result of the list catalog as the floors serve it (serialized once at start):
 * the same tools, descriptions, schemas and annotations the MCP peers advertise, so that a floor
 * writes a page as large as theirs.
 */
export const cannedToolsList = (serverName: string): string => {
  const textSchema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
  return JSON.stringify({
    tools: listToolNames.map((name) => ({
      name,
      description: toolDescription(name),
      inputSchema: textSchema,
      outputSchema: textSchema,
      annotations: { readOnlyHint: true, idempotentHint: true }
    })),
    resultType: "complete",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: serverName, version: "0" } }
  })
}

export interface PeerArgs {
  readonly transport: "stdio" | "http"
  readonly port: number
  readonly catalog: "echo" | "list" | "listen"
}

const catalogs: ReadonlyArray<PeerArgs["catalog"]> = ["echo", "list", "listen"]

/** Reads the peer's flags; exits 2 on a bad port. */
export const parseArgs = (argv: ReadonlyArray<string> = process.argv.slice(2)): PeerArgs => {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag)
    return at >= 0 ? argv[at + 1] : undefined
  }
  const port = Number(value("--port") ?? "0")
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`Invalid port: ${String(value("--port"))}\n`)
    process.exit(2)
  }
  return {
    transport: argv.includes("--stdio") ? "stdio" : "http",
    port,
    catalog: catalogs.find((catalog) => catalog === value("--tools")) ?? "echo"
  }
}

/** The loopback address every HTTP peer binds to. */
export const host = "127.0.0.1"
