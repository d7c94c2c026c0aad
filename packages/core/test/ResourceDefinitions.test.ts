/**
 * Resource templates whose variables are typed from the template literal (completion keys
 * checked against them), and `Resource.make` taking an Effect or a function. Type-level checks
 * are verified by `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Completion, Content, McpServer, Resource, ResourceTemplate } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Context, Effect, Layer } from "effect"

describe("typed resource-template variables", () => {
  it("variables are parsed from the template literal", () => {
    expectTypeOf<ResourceTemplate.Variables<"users://{id}/posts{?page}">>().toEqualTypeOf<{ readonly id: string; readonly page?: string }>()
    expectTypeOf<ResourceTemplate.Variables<"files://{+root}{/path*}{?rev,at}{&x}">>().toEqualTypeOf<{
      readonly root: string
      readonly path: ReadonlyArray<string>
      readonly rev?: string
      readonly at?: string
      readonly x?: string
    }>()
    expectTypeOf<ResourceTemplate.Variables<"a://{/seg}/b">>().toEqualTypeOf<{ readonly seg: string }>()
    expectTypeOf<ResourceTemplate.Variables<"a://fixed">>().toEqualTypeOf<{}>()
    expectTypeOf<ResourceTemplate.Variables<string>>().toEqualTypeOf<ResourceTemplate.AnyVariables>()
    expect(ResourceTemplate.isResourceTemplate(posts)).toBe(true)
  })

  class Users extends Context.Service<Users, { readonly ids: ReadonlyArray<string> }>()("test/Users") {}

  const posts = ResourceTemplate.make({
    uriTemplate: "users://{id}/posts{/path*}{?page}",
    name: "posts",
    complete: { id: () => Effect.map(Effect.service(Users), (users) => users.ids) }
  }, ({ uri, variables }) => {
    expectTypeOf(variables).toEqualTypeOf<{ readonly id: string; readonly path: ReadonlyArray<string>; readonly page?: string }>()
    return Effect.succeed(Content.textContents(uri, JSON.stringify({ id: variables.id, path: variables.path, page: variables.page ?? null })))
  })
  expectTypeOf(posts).toEqualTypeOf<ResourceTemplate.ResourceTemplate<Users>>()

  const provide = Effect.provide(McpTestClient.layer.pipe(
    Layer.provide(McpServer.make({ name: "t", version: "1" }).add(posts).layer),
    Layer.provide(Layer.succeed(Users, { ids: ["ada", "grace"] }))
  ))

  it.effect("the handler gets the variables the URI bound", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const read = yield* client.readResource("users://ada/posts/2024/05?page=2")
      expect(read["contents"]).toEqual([{ uri: "users://ada/posts/2024/05?page=2", text: JSON.stringify({ id: "ada", path: ["2024", "05"], page: "2" }) }])
      const bare = yield* client.readResource("users://ada/posts")
      expect(bare["contents"]).toEqual([{ uri: "users://ada/posts", text: JSON.stringify({ id: "ada", path: [], page: null }) }])
      const ids = yield* client.complete({ type: "ref/resource", uri: "users://{id}/posts{/path*}{?page}" }, { name: "id", value: "" })
      expect(ids["completion"]).toEqual({ values: ["ada", "grace"], total: 2, hasMore: false })
    }).pipe(provide))

  it.effect("a completion for an unknown variable is a type error and refused by the catalog", () =>
    Effect.gen(function*() {
      const stray = ResourceTemplate.make({
        uriTemplate: "users://{id}/profile",
        name: "stray",
        // @ts-expect-error "name" is not a variable of the template
        complete: { name: Completion.fromList(["ada"]) }
      }, ({ uri }) => Effect.succeed(Content.textContents(uri, "")))
      const refused = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(stray).layer))
      expect(refused.message).toBe(`Resource template "users://{id}/profile": completion for "name", which is not one of its variables (id)`)
    }).pipe(Effect.scoped))
})

describe("Resource.make", () => {
  let calls = 0
  const motd = Resource.make({ uri: "motd://today", name: "motd" }, Effect.succeed(Content.textContents("motd://today", "Hello")))
  // The function itself (not only its Effect) runs again for every read.
  const counter = Resource.make({ uri: "count://calls", name: "calls" }, () => {
    calls += 1
    return Effect.succeed(Content.textContents("count://calls", String(calls)))
  })
  class Clock extends Context.Service<Clock, { readonly now: string }>()("test/Clock") {}
  const now = Resource.make({ uri: "clock://now", name: "now" }, Effect.map(Effect.service(Clock), (clock) => Content.textContents("clock://now", clock.now)))
  expectTypeOf(motd).toEqualTypeOf<Resource.Resource<never>>()
  expectTypeOf(now).toEqualTypeOf<Resource.Resource<Clock>>()

  const provide = Effect.provide(McpTestClient.layer.pipe(
    Layer.provide(McpServer.make({ name: "r", version: "1" }).add(motd, counter, now).layer),
    Layer.provide(Layer.succeed(Clock, { now: "noon" }))
  ))

  it.effect("takes an Effect or a function returning one, called again for every read", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.readResource("motd://today"))["contents"]).toEqual([{ uri: "motd://today", text: "Hello" }])
      expect((yield* client.readResource("motd://today"))["contents"]).toEqual([{ uri: "motd://today", text: "Hello" }])
      expect((yield* client.readResource("clock://now"))["contents"]).toEqual([{ uri: "clock://now", text: "noon" }])
      const before = calls
      yield* client.readResource("count://calls")
      expect((yield* client.readResource("count://calls"))["contents"]).toEqual([{ uri: "count://calls", text: String(before + 2) }])
    }).pipe(provide))
})
