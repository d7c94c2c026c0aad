/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) from the host's side: list a
 * server's skills (`skills/list`, every page), get one entry (`skills/get`), read a skill's file
 * (`resources/read`) and a skill folder (`resources/directory/read`).
 *
 * A read is verified against the entry the server listed, as the specification asks of a host:
 * the file must be one of the entry's `resources`, its byte length the entry's `size`, its SHA-256
 * the entry's `sha256:` digest, and a `SKILL.md`'s YAML frontmatter equal, field by field, to the
 * entry's `frontmatter`. Any difference fails with {@link SkillVerificationError} and the content
 * is not handed out. Nothing is read ahead: listing reads no file.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, Skills } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const skills = yield* Skills.make
 *   const [first] = yield* skills.list
 *   if (first === undefined) return
 *   const file = yield* skills.read(first) // SKILL.md, verified
 *   yield* Effect.log(file.frontmatter?.["description"], file.body)
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Result, Schema, Stream } from "effect"
import { Base64 } from "effect/encoding"
import { parseDocument } from "yaml"
import * as Methods from "@snodo/protocol/methods/Methods"
import * as SkillsWire from "@snodo/protocol/wire/Skills"
import { McpClient } from "./McpClient.ts"
import { InvalidResult, type McpClientError } from "./McpClientError.ts"

/**
 * The extension's identifier.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensionName = SkillsWire.extensionId

/**
 * The `mimeType` of a folder in a directory read.
 *
 * @category constants
 * @since 0.1.0
 */
export const directoryMimeType = "inode/directory"

/**
 * A file of a skill as its entry lists it (`uri`, `sha256:` `digest`, `size`): the method table's.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceEntry = SkillsWire.ResourceEntry

/**
 * @category models
 * @since 0.1.0
 */
export type ResourceEntry = SkillsWire.ResourceEntry

/**
 * A skill entry, as `skills/list` and `skills/get` carry it: the method table's.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Skill = SkillsWire.Skill

/**
 * @category models
 * @since 0.1.0
 */
export type Skill = SkillsWire.Skill

/**
 * An entry of a skill directory (`resources/directory/read`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const DirectoryResource = SkillsWire.DirectoryEntry

/**
 * @category models
 * @since 0.1.0
 */
export type DirectoryResource = SkillsWire.DirectoryEntry

/**
 * A read did not match the entry: the file is not one of the entry's (`Unlisted`), its length
 * (`Size`) or its digest (`Digest`) differ, or a `SKILL.md`'s frontmatter differs from the entry's
 * (`Frontmatter`, with the fields in `differences`). The content is not used.
 *
 * @category errors
 * @since 0.1.0
 */
export class SkillVerificationError extends Schema.TaggedError<SkillVerificationError>()("SkillVerificationError", {
  reason: Schema.Literals(["Unlisted", "Size", "Digest", "Frontmatter"]),
  uri: Schema.String,
  message: Schema.String,
  differences: Schema.Array(Schema.String)
}) {}

/**
 * A verified file of a skill: its bytes, its text when the server sent text, and for a `SKILL.md`
 * its frontmatter and the body after it.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillFile {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly bytes: Uint8Array
  readonly text: string | undefined
  readonly frontmatter: Readonly<Record<string, unknown>> | undefined
  readonly body: string | undefined
}

/**
 * The skills of the connected server.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillsClient {
  /** The server declared the extension (in `server/discover`). */
  readonly supported: boolean
  /** The server serves `resources/directory/read`. */
  readonly directoryRead: boolean
  /** Every skill entry, every page. */
  readonly list: Effect.Effect<ReadonlyArray<Skill>, McpClientError>
  /** The entry of one skill, by its `SKILL.md` URI. */
  readonly get: (uri: string) => Effect.Effect<Skill, McpClientError>
  /** A file of the skill (its `SKILL.md` when `uri` is omitted), verified against the entry. */
  readonly read: (skill: Skill, uri?: string) => Effect.Effect<SkillFile, McpClientError | SkillVerificationError>
  /** The direct children of a skill folder, every page. */
  readonly readDirectory: (uri: string) => Effect.Effect<ReadonlyArray<DirectoryResource>, McpClientError>
}

const hex = (bytes: ArrayBuffer): string => Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")

/**
 * `sha256:` and the lowercase hex SHA-256 of `bytes` (Web Crypto: Node, Deno, Bun and browsers).
 *
 * @category utils
 * @since 0.1.0
 */
export const digestOf = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.map(Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)), (hash) => `sha256:${hex(hash)}`)

const opening = /^\uFEFF?---[ \t]*\r?\n/
const closing = /\r?\n---[ \t]*(?:\r?\n|$)/

/**
 * A `SKILL.md`'s frontmatter (YAML 1.2 core schema, data only) and body, or why it has none.
 *
 * @category utils
 * @since 0.1.0
 */
export const parseSkillFile = (text: string): { readonly frontmatter: Record<string, unknown>; readonly body: string } | string => {
  const start = opening.exec(text)
  if (start === null) return "it does not begin with YAML frontmatter"
  const rest = text.slice(start[0].length)
  const end = closing.exec(`\n${rest}`)
  if (end === null) return "its frontmatter is not closed by a line ---"
  const document = parseDocument(rest.slice(0, Math.max(0, end.index - 1)), { version: "1.2", schema: "core", uniqueKeys: true })
  const problem = document.errors[0]
  if (problem !== undefined) return `its frontmatter is not valid YAML: ${problem.message.split("\n")[0]}`
  const value: unknown = document.toJS({ maxAliasCount: 100 })
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "its frontmatter is not a mapping"
  return { frontmatter: value as Record<string, unknown>, body: rest.slice(Math.max(0, end.index - 1) + end[0].length) }
}

/** JSON with object keys sorted: equal for equal data whatever the key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === "object" && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).toSorted(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
      : inner)

/** The fields where two frontmatters differ. */
const fieldsDiffering = (declared: Readonly<Record<string, unknown>>, parsed: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  [...new Set([...Object.keys(declared), ...Object.keys(parsed)])].filter((key) => canonical(declared[key]) !== canonical(parsed[key])).toSorted()

const verify = (skill: Skill, uri: string, bytes: Uint8Array, text: string | undefined): Effect.Effect<Pick<SkillFile, "frontmatter" | "body">, SkillVerificationError> =>
  Effect.gen(function*() {
    const fail = (reason: SkillVerificationError["reason"], message: string, differences: ReadonlyArray<string> = []) =>
      new SkillVerificationError({ reason, uri, message: `${uri}: ${message}; the content is not used`, differences })
    const entry = skill.resources.find((resource) => resource.uri === uri)
    if (entry === undefined) return yield* fail("Unlisted", `not a file of the skill ${skill.uri}`)
    if (bytes.byteLength !== entry.size) return yield* fail("Size", `${bytes.byteLength} bytes read, the entry says ${entry.size}`)
    const digest = yield* digestOf(bytes)
    if (digest !== entry.digest) return yield* fail("Digest", `the content's digest is ${digest}, the entry says ${entry.digest}`)
    if (uri !== skill.uri) return { frontmatter: undefined, body: undefined }
    const parsed = parseSkillFile(text ?? new TextDecoder().decode(bytes))
    if (typeof parsed === "string") return yield* fail("Frontmatter", parsed)
    const differ = fieldsDiffering(skill.frontmatter, parsed.frontmatter)
    if (differ.length > 0) return yield* fail("Frontmatter", `the frontmatter differs from the entry's in ${differ.join(", ")}`, differ)
    return parsed
  })

/** Every page of a paginated method, by the items under `key`. */
const pages = <A>(
  client: McpClient["Service"],
  method: string,
  params: Readonly<Record<string, unknown>>,
  page: (result: unknown) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string | undefined }, McpClientError>
): Effect.Effect<ReadonlyArray<A>, McpClientError> =>
  Stream.paginate(undefined as string | undefined, (cursor) =>
    Effect.map(
      Effect.flatMap(client.request(method, cursor === undefined ? params : { ...params, cursor }), page),
      ({ items, nextCursor }) => [items, nextCursor === undefined ? Option.none<string | undefined>() : Option.some(nextCursor)] as const
    )).pipe(Stream.runCollect)

/**
 * The skills client of the {@link McpClient} in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<SkillsClient, never, McpClient> = Effect.gen(function*() {
  const client = yield* McpClient
  const declared = client.server.capabilities["extensions"]
  const extension = typeof declared === "object" && declared !== null ? (declared as Record<string, unknown>)[extensionName] : undefined
  const read: SkillsClient["read"] = (skill, uri = skill.uri) =>
    Effect.gen(function*() {
      // Checked against the method table by the client already: text or base64 contents.
      const result = yield* client.readResource(uri)
      const content = result.contents.find((item) => item.uri === uri) ?? result.contents[0]
      if (content === undefined) return yield* new InvalidResult({ method: Methods.ResourcesRead.name, message: `${Methods.ResourcesRead.name} of ${uri} returned no contents` })
      const text = "text" in content ? content.text : undefined
      const decoded = "text" in content ? Result.succeed(new TextEncoder().encode(content.text)) : Base64.decode(content.blob)
      if (Result.isFailure(decoded)) {
        return yield* new InvalidResult({ method: Methods.ResourcesRead.name, message: `${Methods.ResourcesRead.name} of ${uri} returned a blob that is not base64` })
      }
      const bytes = decoded.success
      const checked = yield* verify(skill, uri, bytes, text)
      return { uri, mimeType: content.mimeType, bytes, text, ...checked }
    })
  return {
    supported: extension !== undefined,
    directoryRead: typeof extension === "object" && extension !== null && (extension as Record<string, unknown>)["directoryRead"] === true,
    // results are checked against the method table by the client; these only read them
    list: pages(client, Methods.SkillsList.name, {}, (result) => {
      const page = result as SkillsWire.ListSkillsResult
      return Effect.succeed({ items: page.skills, nextCursor: page.nextCursor })
    }),
    get: (uri) => Effect.map(client.request(Methods.SkillsGet.name, { uri }), (result) => (result as unknown as SkillsWire.GetSkillResult).skill),
    read,
    readDirectory: (uri) =>
      pages(client, Methods.ResourcesDirectoryRead.name, { uri }, (result) => {
        const page = result as SkillsWire.ReadDirectoryResult
        return Effect.succeed({ items: page.resources, nextCursor: page.nextCursor })
      })
  }
})

/**
 * The skills client as a service.
 *
 * @category services
 * @since 0.1.0
 */
export class Skills extends Context.Service<Skills, SkillsClient>()("@snodo/client/Skills") {
  /** The skills client of the {@link McpClient} the Layer is given. */
  static readonly layer: Layer.Layer<Skills, never, McpClient> = Layer.effect(Skills, make)
}
