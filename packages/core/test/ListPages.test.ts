/**
 * A list page's result is encoded once per page and dialect, and only the id is written per
 * request: the frames are what encoding each request afresh gave (shaped per dialect, with the
 * method's cache hint), a page per cursor, a view per principal, and a new catalog is new pages.
 */
import { describe, expect, it } from "@effect/vitest"
import { Authorization, McpServer, Principal, Tool } from "@snodo/core"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type { Outcome, RequestContext } from "@snodo/core/transport/ServerRuntime"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { Context, Effect, Exit, Layer, Schema } from "effect"

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

const list = (id: Envelope.RequestId, cursor?: string): Envelope.Request => ({
  _tag: "Request",
  id,
  method: "tools/list",
  params: cursor === undefined ? { _meta: meta } : { cursor, _meta: meta }
})

const tool = (name: string) => Tool.make(name, { description: `the ${name} tool`, input: Schema.Struct({}) }, () => Effect.succeed(name))

const contextOf = (id: string): RequestContext => ({
  transport: "http",
  sink: undefined,
  principal: Principal.Principal.of({ id, claims: {} })
})

const answer = (runtime: ServerRuntime["Service"], request: Envelope.Request, context = contextOf("alice")): Outcome => {
  const handled = runtime.handle(request, context)
  if (!Exit.isExit(handled) || !Exit.isSuccess(handled)) throw new Error("expected an answer at once")
  return (handled as Exit.Success<Outcome>).value
}

const resultOf = (outcome: Outcome): Record<string, unknown> => {
  const frame = JSON.parse(outcome.frame) as { readonly result?: Record<string, unknown> }
  if (frame.result === undefined) throw new Error(outcome.frame)
  return frame.result
}

const runtimeOf = (server: McpServer.McpServer<never>, extra: Layer.Layer<never> = Layer.empty) =>
  Effect.map(Layer.build(server.layer.pipe(Layer.provide(extra))), (context) => Context.get(context, ServerRuntime))

const serverInfo = (name: string) => ({ "io.modelcontextprotocol/serverInfo": { name, version: "1" } })

describe("list pages", () => {
  it.effect("carry their frame in three parts, the page as UTF-8 bytes shared by every request of that page", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf(McpServer.make({ name: "pagés ✓", version: "1", pageSize: 2 }).add(tool("a"), tool("b"), tool("c")))
      const first = answer(runtime, list(1))
      const again = answer(runtime, list("ïd-2"))
      for (const outcome of [first, again]) {
        if (outcome._tag !== "Result" || outcome.encoded === undefined) throw new Error("expected an encoded page")
        const { bytes, head, tail } = outcome.encoded
        expect(head + new TextDecoder().decode(bytes) + tail).toBe(outcome.frame)
      }
      expect(first._tag === "Result" && again._tag === "Result" && first.encoded?.bytes === again.encoded?.bytes).toBe(true)
    }))

  it.effect("each request gets its own id in the page's frame; pages, cursors and the cache hint as before", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf(
        McpServer.make({ name: "pages", version: "1", pageSize: 2, cache: { "tools/list": { ttlMs: 5000, cacheScope: "public" } } })
          .add(tool("a"), tool("b"), tool("c"))
      )
      const first = answer(runtime, list(1))
      const again = answer(runtime, list("x-2"))
      expect(again.frame).toBe(first.frame.replace(`"id":1,`, `"id":"x-2",`))
      expect(first.frame.startsWith(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)).toBe(true)
      const firstPage = resultOf(first)
      expect(firstPage).toEqual({
        tools: [
          { name: "a", description: "the a tool", inputSchema: expect.any(Object) },
          { name: "b", description: "the b tool", inputSchema: expect.any(Object) }
        ],
        nextCursor: expect.any(String),
        resultType: "complete",
        _meta: serverInfo("pages"),
        ttlMs: 5000,
        cacheScope: "public"
      })
      const cursor = String(firstPage["nextCursor"])
      const second = answer(runtime, list(3, cursor))
      expect(resultOf(second)).toEqual({
        tools: [{ name: "c", description: "the c tool", inputSchema: expect.any(Object) }],
        resultType: "complete",
        _meta: serverInfo("pages"),
        ttlMs: 5000,
        cacheScope: "public"
      })
      expect(answer(runtime, list(4, cursor)).frame).toBe(second.frame.replace(`"id":3,`, `"id":4,`))
      expect(answer(runtime, list(5, "bm90LWEtY3Vyc29y"))).toMatchObject({ _tag: "Error", code: -32602 })
    }).pipe(Effect.scoped))

  it.effect("an empty page, and a server of its own: no page is shared across runtimes", () =>
    Effect.gen(function*() {
      const hidden = Authorization.layer({
        authorize: (phase, _component, request) =>
          phase === "discovery" && request.principal.id === "nobody" ? Authorization.refuse(-32001, "hidden") : Authorization.allow
      })
      const empty = yield* runtimeOf(McpServer.make({ name: "empty", version: "1" }).add(tool("a")), hidden)
      const other = yield* runtimeOf(McpServer.make({ name: "other", version: "2" }).add(tool("a")))
      for (const id of [1, 2]) {
        expect(resultOf(answer(empty, list(id), contextOf("nobody")))).toEqual({ tools: [], resultType: "complete", _meta: serverInfo("empty"), ttlMs: 0, cacheScope: "private" })
      }
      expect(resultOf(answer(empty, list(3)))).toMatchObject({ tools: [{ name: "a" }], _meta: serverInfo("empty") })
      expect(resultOf(answer(other, list(4)))).toMatchObject({ tools: [{ name: "a" }], _meta: { "io.modelcontextprotocol/serverInfo": { name: "other", version: "2" } } })
    }).pipe(Effect.scoped))

  it.effect("each principal gets the page of its own view, however often it asks", () =>
    Effect.gen(function*() {
      const policy = Authorization.layer({
        authorize: (phase, component, request) =>
          phase === "discovery" && component.name === "b" && request.principal.id !== "admin" ? Authorization.refuse(-32001, "hidden") : Authorization.allow
      })
      const runtime = yield* runtimeOf(McpServer.make({ name: "views", version: "1" }).add(tool("a"), tool("b")), policy)
      const names = (principal: string, id: number) =>
        (resultOf(answer(runtime, list(id), contextOf(principal)))["tools"] as ReadonlyArray<{ readonly name: string }>).map((entry) => entry.name)
      for (let round = 0; round < 2; round++) {
        expect(names("alice", 1)).toEqual(["a"])
        expect(names("admin", 2)).toEqual(["a", "b"])
        expect(names("bob", 3)).toEqual(["a"])
      }
    }).pipe(Effect.scoped))
})
