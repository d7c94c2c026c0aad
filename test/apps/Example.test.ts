/** examples/13-app: the lunch poll, as a host that renders MCP Apps and one that does not see it. */
import { describe, expect, it } from "@effect/vitest"
import { Apps, McpUi } from "@snodo/apps"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer } from "effect"
import { Runtime } from "../../examples/13-app/server.ts"

const views = { extensions: { [Apps.name]: { mimeTypes: [McpUi.mimeType] } } }
const names = (result: Readonly<Record<string, unknown>>) => (result["tools"] as ReadonlyArray<{ readonly name: string }>).map((tool) => tool.name)

describe("examples/13-app", () => {
  it.effect("a host with views gets the poll for its view and votes through poll_vote; a host without gets text", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(names(yield* client.request("tools/list", {}, { capabilities: views }))).toEqual(["poll", "poll_vote"])
      expect(names(yield* client.request("tools/list", {}))).toEqual(["poll"])

      const read = yield* client.readResource("ui://lunch/poll.html")
      expect(read["contents"]).toMatchObject([{ uri: "ui://lunch/poll.html", mimeType: McpUi.mimeType, _meta: { ui: { prefersBorder: true } } }])
      expect(JSON.stringify(read["contents"])).toContain("poll_vote")

      const opened = yield* client.callTool("poll", {}, { capabilities: views })
      expect(opened.structuredContent).toMatchObject({ question: "What's for lunch?", options: [{ name: "pizza", votes: 0 }, { name: "sushi", votes: 0 }, { name: "salad", votes: 0 }] })
      yield* client.callTool("poll_vote", { option: "sushi" }, { capabilities: views })
      const voted = yield* client.callTool("poll_vote", { option: "sushi" }, { capabilities: views })
      expect(voted.structuredContent).toMatchObject({ options: [{ name: "pizza", votes: 0 }, { name: "sushi", votes: 2 }, { name: "salad", votes: 0 }] })

      const text = yield* client.callTool("poll", {})
      expect(text.structuredContent).toBeUndefined()
      expect(text.content).toEqual([{ type: "text", text: "What's for lunch? pizza: 0, sushi: 2, salad: 0" }])
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(Runtime)))))
})
