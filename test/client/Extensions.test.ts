/**
 * The typed extension clients against the everything server, over stdio (a real child process)
 * and Streamable HTTP (a real listener on port 0): `Skills` lists, gets and reads skills with each
 * read verified against the entry (a tampered entry is a typed `SkillVerificationError`, and the
 * content is not handed out), reads a skill folder; `Apps` declares the host capability through
 * the client's `extensions` option (the server then answers for a view and lists the view-only
 * tool) and reads a tool's `ui://` view.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { Apps, McpClient, Skills, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import { McpServer } from "@snodo/core"
import * as SkillsServer from "@snodo/skills"
import { InMemoryTransport } from "@snodo/testing"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { sourceCondition } from "../support/Sources.ts"

const everything = new URL("../../examples/everything/main.mjs", import.meta.url).pathname

type Options = Parameters<typeof McpClient.layer>[0]

const overStdio = (options: Options, dialects = "2026-07-28") =>
  McpClient.layer(options).pipe(
    Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [sourceCondition, everything, "--stdio", "--dialects", dialects] }))
  )

const overHttp = (options: Options, dialects: ReadonlyArray<"2026-07-28" | "2025-11-25"> = ["2026-07-28"]) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    if (server.address._tag === "UnixPathAddress") return yield* Effect.die("expected TCP")
    return McpClient.layer(options).pipe(
      Layer.provide(StreamableHttpClientTransport.layer({ url: `http://127.0.0.1:${server.address.port}/mcp` })),
      Layer.provide(FetchHttpClient.layer)
    )
  })).pipe(Layer.provide(NodeServe.layer({ port: 0, sessions: dialects.includes("2025-11-25") }).pipe(Layer.provide(serverLayerFor(dialects)))))

const transports = [["stdio", overStdio], ["HTTP", overHttp]] as const

const pdf = "skill://pdf-processing/SKILL.md"
const forms = "skill://pdf-processing/references/FORMS.md"

const skillsApplication = Effect.gen(function*() {
  const skills = yield* Skills.make
  expect(skills.supported).toBe(true)
  expect(skills.directoryRead).toBe(true)
  const listed = yield* skills.list
  expect(listed.map((skill) => skill.frontmatter.name)).toEqual(expect.arrayContaining(["git-workflow", "pdf-processing", "refunds"]))
  const entry = yield* skills.get(pdf)
  expect(entry.frontmatter).toMatchObject({ name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" })

  const skillFile = yield* skills.read(entry)
  expect(skillFile.uri).toBe(pdf)
  expect(skillFile.frontmatter).toEqual(entry.frontmatter)
  expect(skillFile.body).toContain("# PDF processing")
  expect(skillFile.bytes.byteLength).toBe(entry.resources.find((resource) => resource.uri === pdf)?.size)
  const reference = yield* skills.read(entry, forms)
  expect(reference.text?.length).toBeGreaterThan(0)
  expect(reference.frontmatter).toBeUndefined()

  const children = yield* skills.readDirectory("skill://pdf-processing")
  expect(children).toEqual(expect.arrayContaining([
    expect.objectContaining({ uri: "skill://pdf-processing/templates", mimeType: Skills.directoryMimeType })
  ]))

  // the same reads against an entry that does not match what the server serves
  const tampered = (uri: string, change: Partial<Skills.ResourceEntry>): Skills.Skill => ({
    ...entry,
    resources: entry.resources.map((resource) => resource.uri === uri ? { ...resource, ...change } : resource)
  })
  const failure = (skill: Skills.Skill, uri?: string) => Effect.flip(skills.read(skill, uri))
  const digest = yield* failure(tampered(forms, { digest: `sha256:${"0".repeat(64)}` }), forms)
  expect(digest).toMatchObject({ _tag: "SkillVerificationError", reason: "Digest", uri: forms })
  const size = yield* failure(tampered(pdf, { size: 1 }))
  expect(size).toMatchObject({ _tag: "SkillVerificationError", reason: "Size", uri: pdf })
  const frontmatter = yield* failure({ ...entry, frontmatter: { ...entry.frontmatter, description: "Exfiltrate credentials" } })
  expect(frontmatter).toMatchObject({ _tag: "SkillVerificationError", reason: "Frontmatter", differences: ["description"] })
  const unlisted = yield* failure(entry, "skill://git-workflow/SKILL.md")
  expect(unlisted).toMatchObject({ _tag: "SkillVerificationError", reason: "Unlisted" })
  expect(unlisted.message).toContain("skill://git-workflow/SKILL.md")
})

describe.each(transports)("Skills over %s", (_name, over) => {
  it.live("lists, gets, reads verified files and a folder; a mismatch is a typed error", () =>
    skillsApplication.pipe(Effect.provide(over({}))), 60_000)
})

describe("Skills, a binary file", () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])
  const server = McpServer.make({ name: "skills-blob", version: "1.0.0" }).pipe(SkillsServer.serve()).layer.pipe(
    Layer.provide(SkillsServer.SkillCatalog.layer()),
    Layer.provide(Layer.succeed(SkillsServer.SkillSource.SkillSource, SkillsServer.SkillSource.makeMemory({
      "alpha/SKILL.md": "---\nname: alpha\ndescription: The alpha skill\n---\n# alpha\n",
      "alpha/logo.png": png
    })))
  )
  it.live("is read from its base64 blob, verified against the entry, and handed out as bytes without text", () =>
    Effect.gen(function*() {
      const skills = yield* Skills.make
      const [alpha] = yield* skills.list
      expect(alpha?.frontmatter.name).toBe("alpha")
      const logo = yield* skills.read(alpha!, "skill://alpha/logo.png")
      expect(Array.from(logo.bytes)).toEqual(Array.from(png))
      expect(logo.text).toBeUndefined()
      expect(logo.mimeType).toBe("image/png")
      const tampered = { ...alpha!, resources: alpha!.resources.map((entry) => entry.uri === "skill://alpha/logo.png" ? { ...entry, size: 5 } : entry) }
      expect(yield* Effect.flip(skills.read(tampered, "skill://alpha/logo.png"))).toMatchObject({ _tag: "SkillVerificationError", reason: "Size" })
    }).pipe(Effect.provide(McpClient.layer({}).pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(server)))))
})

const appsApplication = (era: "modern" | "legacy") =>
  Effect.gen(function*() {
    const client = yield* McpClient
    expect(client.server.era).toBe(era)
    const apps = yield* Apps.make
    const tools = yield* client.listTools
    const calculator = tools.find((tool) => tool.name === "app_calculator")
    expect(calculator !== undefined && Apps.viewUri(calculator)).toBe("ui://everything/calculator.html")
    // the view-only tool is listed to a host that renders views
    const add = tools.find((tool) => tool.name === "app_calculator_add")
    expect(add !== undefined && Apps.visibility(add)).toEqual(["app"])
    const view = yield* apps.view("app_calculator")
    expect(view).toMatchObject({ uri: "ui://everything/calculator.html", mimeType: Apps.mimeType })
    expect(view.html).toContain("<!doctype html>")
    // the server answers a host with views with structuredContent for the view
    const result = yield* client.callTool("app_calculator", { a: 20, b: 22 })
    expect(result.structuredContent).toMatchObject({ sum: 42 })
    const noView = yield* Effect.flip(apps.view("test_simple_text"))
    expect(noView).toMatchObject({ _tag: "AppViewError", reason: "NoView", tool: "test_simple_text" })
  })

describe.each(transports)("Apps over %s", (_name, over) => {
  it.live("the host capability through the extensions option; a tool's ui:// view", () =>
    Effect.gen(function*() {
      const apps = yield* Apps.make
      expect(apps.supported).toBe(true)
      yield* appsApplication("modern")
    }).pipe(Effect.provide(over({ extensions: Apps.extensions }))), 60_000)

  it.live("without the option the server sees a host without views", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const names = (yield* client.listTools).map((tool) => tool.name)
      expect(names).toContain("app_calculator")
      expect(names).not.toContain("app_calculator_add")
      expect((yield* client.callTool("app_calculator", { a: 20, b: 22 })).structuredContent).toBeUndefined()
    }).pipe(Effect.provide(over({}))), 60_000)
})

describe("Apps on 2025-11-25", () => {
  it.live("the capability goes in initialize, and the server answers the session as a host with views", () =>
    appsApplication("legacy").pipe(Effect.provide(overHttp({ extensions: Apps.extensions, protocolVersion: "2025-11-25" }, ["2025-11-25"]))), 60_000)
})
