/**
 * The Skills extension on a server, through the in-memory test client: the methods, resources/read
 * and resources/list of skill files, pagination, -32602s, cache hints, negotiation, authorization,
 * and reload changes on subscriptions/listen.
 */
import { describe, expect, it } from "@effect/vitest"
import { Authorization, McpServer, Resource, SubscriptionHub } from "@snodo/core"
import { type ServerRuntime } from "@snodo/core/transport"
import * as Content from "@snodo/core/Content"
import * as Skills from "@snodo/skills"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Queue } from "effect"

const manifest = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`

const values = {
  "alpha/SKILL.md": manifest("alpha"),
  "alpha/guide/intro.md": "# Intro\n",
  "alpha/guide/deep/more.md": "more",
  "alpha/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]),
  "beta/SKILL.md": manifest("beta"),
  "gamma/SKILL.md": manifest("gamma")
}

const readme = Resource.make({ uri: "app://readme", name: "readme" }, Effect.succeed(Content.textContents("app://readme", "hello")))

const runtime = (options: Skills.Options = {}, catalog: Skills.SkillCatalog.Options = {}, source = Skills.SkillSource.makeMemory(values)) =>
  McpServer.make({ name: "skills-test", version: "1.0.0" }).add(readme).pipe(Skills.serve(options)).layer.pipe(
    Layer.provide(Skills.SkillCatalog.layer(catalog)),
    Layer.provide(Layer.succeed(Skills.SkillSource.SkillSource, source))
  )

const withClient = <E>(layer: Layer.Layer<ServerRuntime.ServerRuntime, E>) => Effect.provide(McpTestClient.layer.pipe(Layer.provide(layer)))

const settle = Effect.yieldNow.pipe(Effect.repeat({ times: 20 }))

describe("Skills", () => {
  it.effect("is declared in server/discover, directoryRead only when enabled, with the resources capability", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const discovered = yield* client.discover()
      expect(discovered.capabilities["extensions"]).toEqual({ [Skills.name]: { directoryRead: true } })
      expect(discovered.capabilities["resources"]).toBeDefined()
    }).pipe(withClient(runtime({ directoryRead: true }))))

  it.effect("skills/list pages every entry with cache hints; skills/get answers one, -32602 for any other URI", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const first = yield* client.request("skills/list", {})
      expect(first).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" })
      expect((first["skills"] as ReadonlyArray<{ uri: string }>).map((skill) => skill.uri)).toEqual(["skill://alpha/SKILL.md", "skill://beta/SKILL.md"])
      const second = yield* client.request("skills/list", { cursor: first["nextCursor"] })
      expect((second["skills"] as ReadonlyArray<{ uri: string }>).map((skill) => skill.uri)).toEqual(["skill://gamma/SKILL.md"])
      expect(second["nextCursor"]).toBeUndefined()
      expect(yield* Effect.flip(client.request("skills/list", { cursor: "bogus" }))).toMatchObject({ code: -32602 })

      const got = yield* client.request("skills/get", { uri: "skill://alpha/SKILL.md" })
      expect(got).toMatchObject({ ttlMs: 60_000, cacheScope: "public", skill: { uri: "skill://alpha/SKILL.md", frontmatter: { name: "alpha" } } })
      expect(got["nextCursor"]).toBeUndefined()
      for (const uri of ["skill://nope/SKILL.md", "skill://alpha/logo.png", "skill://alpha"]) {
        expect(yield* Effect.flip(client.request("skills/get", { uri }))).toMatchObject({ code: -32602, data: { uri } })
      }
    }).pipe(withClient(runtime({ cache: { ttlMs: 60_000, cacheScope: "public" } }, { pageSize: 2 }))))

  it.effect("reads skill files through resources/read (text or blob) and lists each SKILL.md after the catalog's resources", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const text = yield* client.readResource("skill://alpha/guide/intro.md")
      expect(text.contents).toEqual([{ uri: "skill://alpha/guide/intro.md", mimeType: "text/markdown", text: "# Intro\n" }])
      const blob = yield* client.readResource("skill://alpha/logo.png")
      expect(blob.contents).toEqual([{ uri: "skill://alpha/logo.png", mimeType: "image/png", blob: Buffer.from(values["alpha/logo.png"]).toString("base64") }])
      for (const uri of ["skill://alpha/missing.md", "skill://alpha/guide", "skill://nope/SKILL.md"]) {
        expect(yield* Effect.flip(client.readResource(uri))).toMatchObject({ code: -32602 })
      }
      const resources = yield* client.list("resources")
      expect(resources).toEqual([
        { uri: "app://readme", name: "readme" },
        { uri: "skill://alpha/SKILL.md", name: "alpha", description: "The alpha skill", mimeType: "text/markdown", size: Buffer.byteLength(manifest("alpha")) },
        { uri: "skill://beta/SKILL.md", name: "beta", description: "The beta skill", mimeType: "text/markdown", size: Buffer.byteLength(manifest("beta")) },
        { uri: "skill://gamma/SKILL.md", name: "gamma", description: "The gamma skill", mimeType: "text/markdown", size: Buffer.byteLength(manifest("gamma")) }
      ])
      expect((yield* client.list("resourceTemplates")).map((template) => template.uriTemplate)).toEqual([Skills.uriTemplate])
    }).pipe(withClient(runtime({}, { pageSize: 2 }))))

  it.effect("resources/directory/read lists direct children, subfolders as inode/directory, pages them, -32602 for files and unknowns", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const root = yield* client.request("resources/directory/read", { uri: "skill://alpha" })
      expect(root["resources"]).toEqual([
        { uri: "skill://alpha/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: Buffer.byteLength(manifest("alpha")) },
        { uri: "skill://alpha/guide", name: "guide", mimeType: "inode/directory" }
      ])
      expect(root).toMatchObject({ ttlMs: 0, cacheScope: "private" })
      const rest = yield* client.request("resources/directory/read", { uri: "skill://alpha", cursor: root["nextCursor"] })
      expect(rest["resources"]).toEqual([{ uri: "skill://alpha/logo.png", name: "logo.png", mimeType: "image/png", size: 6 }])
      const guide = yield* client.request("resources/directory/read", { uri: "skill://alpha/guide" })
      expect((guide["resources"] as ReadonlyArray<{ uri: string }>).map((child) => child.uri)).toEqual(["skill://alpha/guide/deep", "skill://alpha/guide/intro.md"])
      for (const uri of ["skill://alpha/SKILL.md", "skill://nope", "skill://alpha/guide/"]) {
        expect(yield* Effect.flip(client.request("resources/directory/read", { uri }))).toMatchObject({ code: -32602 })
      }
    }).pipe(withClient(runtime({ directoryRead: true }, { pageSize: 2 }))))

  it.effect("without directoryRead the method does not exist", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(yield* Effect.flip(client.request("resources/directory/read", { uri: "skill://alpha" }))).toMatchObject({ code: -32601 })
    }).pipe(withClient(runtime())))

  it.effect("with clientMustDeclare, a request that does not name the extension is refused with -32021", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(yield* Effect.flip(client.request("skills/list", {}))).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [Skills.name]: {} } } } })
      const declared = yield* client.request("skills/list", {}, { capabilities: { extensions: { [Skills.name]: {} } } })
      expect(declared["skills"]).toHaveLength(3)
    }).pipe(withClient(runtime({ clientMustDeclare: true }))))

  it.effect("a server without the skill files template fails its Layer with a CatalogError", () =>
    Effect.gen(function*() {
      const layer = McpServer.make({ name: "x", version: "1" }).extend(Skills.extension()).layer.pipe(
        Layer.provide(Skills.SkillCatalog.layer()),
        Layer.provide(Skills.SkillSource.layerMemory(values))
      )
      const error = yield* Layer.build(layer).pipe(Effect.scoped, Effect.flip)
      expect(error).toMatchObject({ _tag: "CatalogError", message: expect.stringContaining("Skills.files()") })
    }))

  it.effect("an authorization policy that hides the skills hides them from every list and answers -32602", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.request("skills/list", {}))["skills"]).toEqual([])
      expect((yield* client.list("resources")).map((resource) => resource.uri)).toEqual(["app://readme"])
      expect(yield* Effect.flip(client.request("skills/get", { uri: "skill://alpha/SKILL.md" }))).toMatchObject({ code: -32602 })
      expect(yield* Effect.flip(client.readResource("skill://alpha/SKILL.md"))).toMatchObject({ code: -32602 })
    }).pipe(withClient(runtime().pipe(Layer.provide(Authorization.layer({
      authorize: (_phase, component) => component.kind === "template" ? Authorization.refuse(-32001, "hidden", { conceal: true }) : Authorization.allow
    }))))))

  it.effect("reload publishes resources/list_changed and resources/updated to the listen streams that asked", () => {
    const source = Skills.SkillSource.makeMemory(values)
    // one catalog, shared by the server and the test (which reloads it)
    const catalog = Skills.SkillCatalog.layer().pipe(Layer.provide(Layer.succeed(Skills.SkillSource.SkillSource, source)))
    const server = McpServer.make({ name: "skills-test", version: "1.0.0" }).pipe(Skills.serve()).layer
    const layer = McpTestClient.layer.pipe(
      Layer.provide(server),
      Layer.provideMerge(catalog),
      Layer.provide(SubscriptionHub.layerMemory())
    )
    return Effect.gen(function*() {
      const client = yield* McpTestClient
      const skills = yield* Skills.SkillCatalog.SkillCatalog
      yield* Effect.forkChild(client.request("subscriptions/listen", {
        notifications: { resourcesListChanged: true, resourceSubscriptions: ["skill://alpha/guide/intro.md", "skill://beta/SKILL.md"] }
      }))
      yield* settle
      expect(yield* Queue.take(client.notifications)).toMatchObject({ method: "notifications/subscriptions/acknowledged" })
      const { "beta/SKILL.md": _removed, ...kept } = values
      yield* source.replace({ ...kept, "alpha/guide/intro.md": "# Intro, revised\n", "delta/SKILL.md": manifest("delta") })
      const changes = yield* skills.reload
      expect(changes).toMatchObject({ added: ["skill://delta/SKILL.md"], removed: ["skill://beta/SKILL.md"], listChanged: true })
      yield* settle
      const received = [yield* Queue.take(client.notifications), yield* Queue.take(client.notifications), yield* Queue.take(client.notifications)]
      expect(received.map((notification) => [notification.method, (notification.params as { uri?: string }).uri])).toEqual([
        ["notifications/resources/list_changed", undefined],
        ["notifications/resources/updated", "skill://alpha/guide/intro.md"],
        ["notifications/resources/updated", "skill://beta/SKILL.md"]
      ])
      const read = yield* client.readResource("skill://alpha/guide/intro.md")
      expect(read.contents[0]).toMatchObject({ text: "# Intro, revised\n" })
    }).pipe(Effect.provide(layer))
  })
})
