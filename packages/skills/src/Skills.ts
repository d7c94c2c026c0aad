/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on snodo's extension seam.
 *
 * Added to a server by the application (`McpServer.make(...).pipe(Skills.serve(options))`) with a
 * `SkillCatalog` Layer on a `SkillSource` (a directory on disk, values in memory). It serves:
 *
 * - every file of every skill as a resource `skill://<skill-path>/<file>`, read with
 *   `resources/read` (through the resource template {@link files}: an unknown URI is -32602);
 *   each `SKILL.md` is listed in `resources/list` as `text/markdown`, named and described by its
 *   frontmatter;
 * - `skills/list` (paginated) and `skills/get` (-32602 for a URI that is not a served skill's
 *   `SKILL.md`): entries with the frontmatter verbatim and every file's `sha256:` digest and size;
 * - `resources/directory/read` (direct children of a skill folder; subfolders as
 *   `inode/directory`; -32602 for anything else) when `directoryRead` is set, advertised as
 *   `capabilities.extensions["io.modelcontextprotocol/skills"].directoryRead: true`;
 * - cache hints (`ttlMs`, `cacheScope`) on all of these, from `cache` (default `0` / `private`);
 * - after `SkillCatalog.reload`, `notifications/resources/list_changed` (when a skill came, went
 *   or changed its name or description) and `notifications/resources/updated` (each changed file)
 *   to the `subscriptions/listen` streams that asked for them.
 *
 * The extension is declared in `server/discover`; as the specification has it, the declaration is
 * the negotiation: a client calls `skills/list` once it has seen it, without declaring anything
 * itself. With `clientMustDeclare` the methods exist only for a request whose
 * `clientCapabilities.extensions` names the extension (-32021 otherwise). The initialize era
 * (2025-11-25) takes no extensions: there the skill files are ordinary resources.
 *
 * An `AuthorizationPolicy` sees the skills as the template {@link files}: a principal it hides the
 * template from at discovery sees no skill in either list, and `skills/get` and directory reads
 * answer as for an unknown URI.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpServer } from "@snodo/core"
 * import * as Skills from "@snodo/skills"
 *
 * const Server = McpServer.make({ name: "docs", version: "1.0.0" }).pipe(Skills.serve({ directoryRead: true }))
 *
 * const Runtime = Server.layer.pipe(
 *   Layer.provide(Skills.SkillCatalog.layer()),
 *   Layer.provide(Skills.NodeSkillSource.layer("./skills"))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { type McpServer, SubscriptionHub } from "@snodo/core"
import { Extension } from "@snodo/core/extension"
import { CatalogError } from "@snodo/core/Catalog"
import * as Content from "@snodo/core/Content"
import * as Pagination from "@snodo/core/extension/Pagination"
import * as ResourceTemplate from "@snodo/core/ResourceTemplate"
import { InvalidParams } from "@snodo/core/McpError"
import type { CacheHint } from "@snodo/core/extension/Shaping"
import * as List from "@snodo/core/extension/List"
import * as Route from "@snodo/core/extension/Route"
import * as Authorization from "@snodo/core/Authorization"
import type { Principal } from "@snodo/core/Principal"
import * as Methods from "@snodo/protocol/methods/Methods"
import { PaginatedRequestParams } from "@snodo/protocol/wire/Meta"
import { Effect, Option, PubSub } from "effect"
import * as Skill from "./Skill.ts"
import { SkillCatalog } from "./SkillCatalog.ts"

/**
 * The extension's identifier.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = Skill.extensionName

/**
 * Extension options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Serve `resources/directory/read` and advertise `directoryRead: true`. Default false. */
  readonly directoryRead?: boolean
  /** The cache hint of `skills/list`, `skills/get`, directory reads and skill file reads. Default `0` / `private`. */
  readonly cache?: CacheHint
  /** List each `SKILL.md` in `resources/list`. Default true. */
  readonly listResources?: boolean
  /**
   * Serve the methods only to requests that name the extension in `clientCapabilities.extensions`
   * (-32021 otherwise). Default false: the server's declaration is the negotiation.
   */
  readonly clientMustDeclare?: boolean
}

/**
 * The URI template of skill files.
 *
 * @since 0.1.0
 * @category constants
 */
export const uriTemplate = "skill://{+path}"

const made = new WeakSet<object>()

/**
 * The resource template serving every file of the `SkillCatalog` through `resources/read`: text
 * files as `text`, others as a base64 `blob`; an unknown URI (or a folder's) is -32602.
 *
 * @since 0.1.0
 * @category constructors
 */
export const files = (options: Pick<Options, "cache"> = {}): ResourceTemplate.ResourceTemplate<SkillCatalog> => {
  const template = ResourceTemplate.make({
    uriTemplate,
    name: "skills",
    title: "Agent skills",
    description: "The files of the agent skills this server serves (SEP-2640); skills/list enumerates them",
    ...(options.cache === undefined ? {} : { cache: options.cache })
  }, ({ uri }) =>
    Effect.gen(function*() {
      const file = (yield* SkillCatalog).snapshot().files.get(uri)
      if (file === undefined) return undefined
      return file.text === undefined ? Content.blobContents(uri, file.bytes, file.mimeType) : Content.textContents(uri, file.text, file.mimeType)
    }))
  made.add(template)
  return template
}

const skillNotFound = (uri: string) => new InvalidParams({ message: "Invalid params: not a skill this server serves", data: { uri } })
const notDirectory = (uri: string) => new InvalidParams({ message: "Invalid params: not a directory resource", data: { uri } })

/**
 * The extension, for a server that has the template {@link files} and whose application provides
 * a `SkillCatalog` ({@link serve} adds both pieces to a server).
 *
 * @since 0.1.0
 * @category constructors
 */
export const extension = (options: Options = {}): Extension.Extension<SkillCatalog> =>
  Extension.make({
    name,
    settings: options.directoryRead === true ? { directoryRead: true } : {},
    make: (environment) =>
      Effect.gen(function*() {
        const compiled = environment.catalog.templates.find((candidate) => made.has(candidate.template))
        if (compiled === undefined) {
          return yield* new CatalogError({ message: "Skills: the server has no skill files template: add Skills.files() to it, or use Skills.serve" })
        }
        const component = Authorization.templateComponent(compiled.template)
        const catalog = yield* SkillCatalog
        const policy = Option.getOrUndefined(yield* Effect.serviceOption(Authorization.AuthorizationPolicy))
        const visible = (principal: Principal["Service"], method: string) =>
          policy === undefined || policy.authorize("discovery", component, { principal, method }) === "allow"

        const hub = environment.hub
        if (hub !== undefined) {
          const changes = yield* catalog.changes
          yield* Effect.forkScoped(Effect.forever(Effect.flatMap(PubSub.take(changes), (changed) =>
            Effect.gen(function*() {
              if (changed.listChanged) yield* hub.publish(SubscriptionHub.resourcesListChanged)
              for (const uri of changed.updated) yield* hub.publish(SubscriptionHub.resourceUpdated(uri))
            }))))
        }

        const list = Route.make({
          method: Methods.SkillsList,
          params: PaginatedRequestParams.schema,
          run: (call) => {
            const skills = visible(call.principal, "skills/list") ? catalog.snapshot().skills : Pagination.makeList<Skill.Skill>([])
            const page = Pagination.page(skills, call.params.cursor)
            if (page instanceof InvalidParams) return Effect.fail(page)
            return Effect.succeed(Route.result(
              page.nextCursor === undefined ? { skills: page.items } : { skills: page.items, nextCursor: page.nextCursor },
              options.cache
            ))
          }
        })

        const get = Route.make({
          method: Methods.SkillsGet,
          run: (call) => {
            const skill = catalog.snapshot().byUri.get(call.params.uri)
            return skill === undefined || !visible(call.principal, "skills/get")
              ? Effect.fail(skillNotFound(call.params.uri))
              : Effect.succeed(Route.result({ skill }, options.cache))
          }
        })

        const directoryRead = Route.make({
          method: Methods.ResourcesDirectoryRead,
          run: (call) => {
            const directory = catalog.snapshot().directories.get(call.params.uri)
            if (directory === undefined || !visible(call.principal, "resources/directory/read")) return Effect.fail(notDirectory(call.params.uri))
            const page = Pagination.page(directory, call.params.cursor)
            if (page instanceof InvalidParams) return Effect.fail(page)
            return Effect.succeed(Route.result(
              page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor },
              options.cache
            ))
          }
        })

        // resources/list pages the catalog's resources, then each SKILL.md: one list per view and
        // snapshot, so cursors stay valid until either changes.
        const combined = new WeakMap<object, { readonly listed: object; readonly list: Pagination.PagedList<Readonly<Record<string, unknown>>> }>()
        const resourcesList = Extension.wrap(List.ResourcesList, (route) => ({
          ...route,
          run: (call, target) => {
            const listed = catalog.snapshot().listed
            if (options.listResources === false || listed.length === 0 || !visible(call.principal, Methods.ResourcesList.name)) return route.run(call, target)
            const view = call.environment.views("resources", { principal: call.principal, method: Methods.ResourcesList.name })
            let entry = combined.get(view)
            if (entry === undefined || entry.listed !== listed) {
              entry = { listed, list: Pagination.makeList([...view.items, ...listed], view.pageSize, view.fingerprint) }
              combined.set(view, entry)
            }
            const page = Pagination.page(entry.list, call.params.cursor)
            if (page instanceof InvalidParams) return Effect.fail(page)
            return Effect.succeed(Route.result(
              page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor }
            ))
          }
        }))

        const methods = options.directoryRead === true ? [list, get, directoryRead] : [list, get]
        return {
          ...(options.clientMustDeclare === true ? { routes: methods } : { openRoutes: methods }),
          wraps: [resourcesList]
        } satisfies Extension.Contribution
      })
  })

/**
 * Adds the Skills extension to a server: the template {@link files} and the {@link extension}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const serve = (options: Options = {}) => <R>(server: McpServer.McpServer<R>): McpServer.McpServer<R | SkillCatalog> =>
  server.add(files(options)).extend(extension(options))
