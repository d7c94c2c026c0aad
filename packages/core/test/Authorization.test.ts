import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { Authorization, Completion, Content, McpServer, Principal, Prompt, Resource, Tool } from "@snodo/core"
import * as CatalogViews from "../src/runtime/internal/CatalogViews.ts"
import * as ServerRuntime from "@snodo/core/transport/ServerRuntime"
import * as SubscriptionHub from "@snodo/core/SubscriptionHub"
import { McpTestClient } from "@snodo/testing"

const makeTool = (name: string, ran: Ref.Ref<Array<string>>) =>
  Tool.make(name, { input: Schema.Struct({ n: Schema.Finite }) }, () => Ref.update(ran, (names) => [...names, name]).pipe(Effect.as("ok")))

const principal = (id: string, role: string): Principal.Principal["Service"] => ({ id, claims: { role } })
const alice = principal("alice", "admin")
const bob = principal("bob", "user")
const eve = principal("eve", "guest")

const as = (who: Principal.Principal["Service"]) => Effect.provideService(Principal.Principal, who)

const audit: Array<Authorization.AuditEvent> = []

/** admins see everything; users see no admin_* tools; guests see only public_* tools. Secrets are concealed. */
const policy = Authorization.layer({
  authorize: (_phase, component, { principal: who }) => {
    const role = who.claims["role"]
    if (role === "admin") return Authorization.allow
    if (component.name.startsWith("secret")) return Authorization.refuse(-32003, "Not found", { conceal: true })
    if (role === "guest" && !component.name.startsWith("public")) return Authorization.refuse(-32001, "Forbidden for guests")
    if (component.name.startsWith("admin")) return Authorization.refuse(-32002, "Admins only", { data: { need: "admin" } })
    return Authorization.allow
  },
  audit: (event) => Effect.sync(() => void audit.push(event))
})

const setup = Effect.gen(function*() {
  const ran = yield* Ref.make<Array<string>>([])
  const tools = ["public_a", "public_b", "user_c", "admin_d", "secret_e"].map((name) => makeTool(name, ran))
  const prompt = Prompt.make("admin_prompt", { complete: { x: Completion.fromList(["1"]) } }, () => Effect.succeed([Prompt.user("hi")]))
  const resource = Resource.make({ uri: "file:///secret", name: "secret_file" }, () => Effect.succeed(Content.textContents("file:///secret", "s")))
  const server = McpServer.make({ name: "authz", version: "1", pageSize: 2 }).add(...tools, prompt, resource)
  return { ran, layer: McpTestClient.layer.pipe(Layer.provide(server.layer), Layer.provide(policy)) }
})

const names = (entries: ReadonlyArray<Readonly<Record<string, unknown>>>) => entries.map((entry) => entry["name"])

describe("authorization", () => {
  it.effect("discovery filters each principal's lists before pagination", () =>
    Effect.gen(function*() {
      const { layer } = yield* setup
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        expect(names(yield* client.list("tools").pipe(as(alice)))).toEqual(["public_a", "public_b", "user_c", "admin_d", "secret_e"])
        expect(names(yield* client.list("tools").pipe(as(bob)))).toEqual(["public_a", "public_b", "user_c"])
        expect(names(yield* client.list("tools").pipe(as(eve)))).toEqual(["public_a", "public_b"])
        expect(names(yield* client.list("resources").pipe(as(bob)))).toEqual([])
        expect(names(yield* client.list("prompts").pipe(as(alice)))).toEqual(["admin_prompt"])
        // capabilities stay catalog-wide
        expect(Object.keys((yield* client.discover().pipe(as(eve)))["capabilities"] as object)).toContain("prompts")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a cursor from one principal is refused for another", () =>
    Effect.gen(function*() {
      const { layer } = yield* setup
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        const first = yield* client.request("tools/list").pipe(as(bob))
        const cursor = first["nextCursor"] as string
        expect((yield* client.request("tools/list", { cursor }).pipe(as(bob)))["tools"]).toHaveLength(1)
        const crossed = yield* Effect.flip(client.request("tools/list", { cursor }).pipe(as(alice)))
        expect(crossed.code).toBe(-32602)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("invocation refuses before validation and before the handler, with the app's error", () =>
    Effect.gen(function*() {
      const { layer, ran } = yield* setup
      audit.length = 0
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        // invalid arguments would be an isError result: the refusal comes first
        const refused = yield* Effect.flip(client.callTool("admin_d", { n: "not a number" }).pipe(as(bob)))
        expect(refused.code).toBe(-32002)
        expect(refused.message).toBe("Admins only")
        expect(refused.data).toEqual({ need: "admin" })
        const guest = yield* Effect.flip(client.callTool("user_c", { n: 1 }).pipe(as(eve)))
        expect(guest.code).toBe(-32001)
        expect((yield* client.callTool("admin_d", { n: 1 }).pipe(as(alice))).content).toEqual([{ type: "text", text: "ok" }])
        const prompt = yield* Effect.flip(client.getPrompt("admin_prompt").pipe(as(bob)))
        expect(prompt.code).toBe(-32002)
        const completion = yield* Effect.flip(client.complete({ type: "ref/prompt", name: "admin_prompt" }, { name: "x", value: "" }).pipe(as(bob)))
        expect(completion.code).toBe(-32002)
      }).pipe(Effect.provide(layer))
      expect(yield* Ref.get(ran)).toEqual(["admin_d"])
      expect(audit.map((event) => [event.outcome, event.method, event.component.name, event.principal])).toEqual([
        ["refused", "tools/call", "admin_d", "bob"],
        ["refused", "tools/call", "user_c", "eve"],
        ["refused", "prompts/get", "admin_prompt", "bob"],
        ["refused", "completion/complete", "admin_prompt", "bob"]
      ])
      expect(JSON.stringify(audit)).not.toContain("not a number")
    }))

  it.effect("conceal makes a refusal look exactly like not-found", () =>
    Effect.gen(function*() {
      const { layer } = yield* setup
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        const concealed = yield* Effect.flip(client.callTool("secret_e", { n: 1 }).pipe(as(bob)))
        const missing = yield* Effect.flip(client.callTool("secret_zzz", { n: 1 }).pipe(as(bob)))
        expect(concealed.code).toBe(missing.code)
        expect(concealed.message).toBe("Unknown tool: secret_e")
        const resource = yield* Effect.flip(client.readResource("file:///secret").pipe(as(bob)))
        expect(resource).toMatchObject({ code: -32602, message: "Resource not found", data: { uri: "file:///secret" } })
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a policy with public cache hints is refused at construction", () =>
    Effect.gen(function*() {
      const server = McpServer.make({ name: "x", version: "1", cache: { "tools/list": { ttlMs: 10, cacheScope: "public" } } })
        .add(Tool.make("t", { input: Schema.Struct({}) }, () => Effect.succeed("ok")))
      const error = yield* Effect.flip(Layer.build(server.layer.pipe(Layer.provide(policy))))
      expect(error.message).toContain("cacheScope \"public\" is not allowed with an AuthorizationPolicy")
      expect(error.message).toContain("tools/list")
    }).pipe(Effect.scoped))

  it("refusal codes outside -32000..-32019 are refused", () => {
    expect(() => Authorization.refuse(-32602, "impersonation")).toThrow()
    expect(() => Authorization.refuse(-32020, "reserved")).toThrow()
    expect(Authorization.refuse(-32019, "ok").error.code).toBe(-32019)
  })
})

describe("subscription hub events", () => {
  it.effect("resources/updated for a resource hidden from a principal is not delivered to it", () =>
    Effect.gen(function*() {
      const secret = Resource.make({ uri: "file:///secret", name: "secret_file" }, () => Effect.succeed(Content.textContents("file:///secret", "s")))
      const open = Resource.make({ uri: "file:///open", name: "open_file" }, () => Effect.succeed(Content.textContents("file:///open", "o")))
      const built = yield* Layer.build(McpServer.make({ name: "hub", version: "1" }).add(secret, open).layer)
      const runtime = Context.get(built, ServerRuntime.ServerRuntime)
      const policyService = Context.get(yield* Layer.build(policy), Authorization.AuthorizationPolicy)
      const memory = SubscriptionHub.makeMemory()
      const hub = CatalogViews.visibleHub(memory, runtime.catalog, policyService)
      const received: Record<string, Array<string>> = { alice: [], bob: [] }
      const filter = { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: new Set(["file:///secret", "file:///open"]), topics: new Set<string>() }
      for (const who of [alice, bob]) {
        yield* hub.subscribe({ filter, principal: who, deliver: (change) => void received[who.id]!.push(change._tag === "ResourceUpdated" ? change.uri : change._tag) })
      }
      yield* hub.publish(SubscriptionHub.resourceUpdated("file:///secret"))
      yield* hub.publish(SubscriptionHub.resourceUpdated("file:///open"))
      yield* hub.publish(SubscriptionHub.toolsListChanged)
      expect(received).toEqual({
        alice: ["file:///secret", "file:///open", "ToolsListChanged"],
        bob: ["file:///open", "ToolsListChanged"]
      })
    }).pipe(Effect.scoped))
})
