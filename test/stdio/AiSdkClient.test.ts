/**
 * The everything server as `npm run everything` starts it (`examples/everything/main.mjs`, which
 * runs the bundle docs/startup.md recommends, `examples/everything/bundle.ts`, built here if the
 * sources changed since it was), spawned by the Vercel AI SDK's stdio client (`@ai-sdk/mcp`
 * 2.0.99). That client sends `server/discover` and waits 1 s for it before falling back to
 * `initialize`: a server that starts slower is spoken to in the 2025-11-25 era, and one that
 * serves only 2026-07-28 is then unreachable. Not timed: it asserts the era the client settled on.
 *
 * The compile cache is filled by one start first, as any start after an application's first has
 * it (`module.enableCompileCache()` in `examples/everything/main.mjs`).
 */
import { execFileSync } from "node:child_process"
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { beforeAll, describe, expect, it } from "vitest"
import { fileURLToPath } from "node:url"
import { bundle } from "../../examples/everything/bundle.ts"

const main = fileURLToPath(new URL("../../examples/everything/main.mjs", import.meta.url))

beforeAll(async () => {
  await bundle()
  // One start that ends at once (stdin closed): fills the compile cache the client's spawns use
  // (the AI SDK passes only PATH, HOME and a few more variables to the server).
  execFileSync(process.execPath, [main, "--stdio"], { input: "", stdio: ["pipe", "ignore", "ignore"], env: { PATH: process.env["PATH"] ?? "" } })
}, 60_000)

const connect = (args: ReadonlyArray<string>): Promise<MCPClient> =>
  createMCPClient({ transport: new StdioMCPTransport({ command: process.execPath, args: [main, "--stdio", ...args], stderr: "ignore" }), name: "snodo-ai-sdk-test" })

describe("the AI SDK's stdio client", () => {
  it("negotiates 2026-07-28 with the everything server and lists its tools", async () => {
    const client = await connect([])
    try {
      expect(client.initializeResult.protocolVersion).toBe("2026-07-28")
      expect(client.serverInfo.name).toBe("snodo-everything")
      const tools = await client.tools()
      expect(Object.keys(tools)).toContain("echo")
    } finally {
      await client.close()
    }
  }, 30_000)

  it("reaches a server that speaks 2026-07-28 only", async () => {
    const client = await connect(["--dialects", "2026-07-28"])
    try {
      expect(client.initializeResult.protocolVersion).toBe("2026-07-28")
    } finally {
      await client.close()
    }
  }, 30_000)
})
