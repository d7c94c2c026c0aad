/**
 * MRTR end to end with the official client 2.4.0 (`inputRequired.autoFulfill`), over stdio (the
 * `examples/03-mrtr` server as a child process) and over Streamable HTTP (the same server on a
 * real listener, port 0): a two-round tool, a three-round tool, a resource read and a prompt, all
 * answered by the client's elicitation handler; and a captured `requestState` replayed with
 * changed arguments is refused.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { Keyring } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Server } from "../../examples/03-mrtr/server.ts"
import { sourceCondition } from "../support/Sources.ts"

type Transport = StdioClientTransport | StreamableHTTPClientTransport

const answers = (message: string): Record<string, unknown> =>
  message.startsWith("Where") ? { city: "lis" } : message.startsWith("What is your name") ? { name: "Ada" } : { nights: 2, confirm: true }

const connect = async (transport: Transport, autoFulfill: boolean) => {
  const client = new Client({ name: "snodo-mrtr-e2e", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    inputRequired: { autoFulfill, maxRounds: 5 }
  })
  const asked: Array<string> = []
  client.setRequestHandler("elicitation/create", async (request) => {
    const message = String(request.params.message)
    asked.push(message)
    return { action: "accept", content: answers(message) } as never
  })
  await client.connect(transport)
  return { client, asked }
}

const text = (result: { content?: unknown }) => (result.content as Array<{ text?: string }>)[0]?.text

const suite = (name: string, transport: () => Transport) =>
  describe(`MRTR with the official client over ${name}`, () => {
    let auto: Awaited<ReturnType<typeof connect>>
    let manual: Awaited<ReturnType<typeof connect>>
    beforeAll(async () => {
      auto = await connect(transport(), true)
      manual = await connect(transport(), false)
    })
    afterAll(async () => {
      await auto?.client.close()
      await manual?.client.close()
    })

    it("completes a two-round and a three-round tool", async () => {
      auto.asked.length = 0
      expect(text(await auto.client.callTool({ name: "greet", arguments: {} }))).toBe("Hello, Ada!")
      expect(text(await auto.client.callTool({ name: "book_trip", arguments: { traveller: "Ada" } }))).toBe(
        "Booked 2 night(s) in lis for Ada: 240 EUR."
      )
      expect(auto.asked).toEqual(["What is your name?", "Where do you want to go?", "120 EUR per night. How long, and shall I book?"])
    })

    it("completes a resource read and a prompt", async () => {
      const read = await auto.client.readResource({ uri: "trips://current" })
      expect(read.contents).toEqual([{ uri: "trips://current", mimeType: "text/plain", text: "No trip on file for Ada." }])
      const prompt = await auto.client.getPrompt({ name: "trip_summary" })
      expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Write a short travel summary for lis." } }])
    })

    it("refuses a captured requestState replayed with changed arguments", async () => {
      const first = await manual.client.callTool({ name: "book_trip", arguments: { traveller: "Ada" } }, { allowInputRequired: true }) as unknown as {
        readonly resultType?: string
        readonly requestState?: string
        readonly inputRequests?: Record<string, unknown>
      }
      expect(first.inputRequests).toHaveProperty("city")
      expect(typeof first.requestState).toBe("string")
      const replay = manual.client.callTool({
        name: "book_trip",
        arguments: { traveller: "Eve" },
        inputResponses: { city: { action: "accept", content: { city: "osl" } } },
        requestState: first.requestState
      } as never, { allowInputRequired: true })
      const error = await replay.then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(ProtocolError)
      expect((error as ProtocolError).code).toBe(-32602)
      expect((error as ProtocolError).message).toContain("Invalid or expired request state")
    })
  })

suite("stdio", () => new StdioClientTransport({ command: process.execPath, args: [sourceCondition, "examples/03-mrtr/main.ts"], stderr: "pipe" }))

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown> | undefined
let url: URL | undefined
const Keys = Keyring.layer({ keys: [{ id: "e2e", secret: new Uint8Array(32).fill(42) }] })

beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(Server.layer), Layer.provide(Keys)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  url = new URL(`http://127.0.0.1:${server.address.port}/mcp`)
})
afterAll(async () => {
  await runtime?.dispose()
})

suite("Streamable HTTP", () => new StreamableHTTPClientTransport(url!))
