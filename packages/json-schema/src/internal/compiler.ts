/**
 * hyperjump's asynchronous compiler, run on the caller's thread with a closed set of documents.
 *
 * Nothing is registered with hyperjump: every compile gets its own document table (a `_cache`
 * proxy) holding the schema, the validator's catalog and hyperjump's built-in 2020-12
 * meta-schemas. Looking up any other document throws instead of falling through to hyperjump's
 * URI scheme plugins, so a compile never retrieves anything, whatever plugins the process has
 * installed, and two validators (or two catalogs) never see each other's documents.
 *
 * What stays process-wide is hyperjump's dialect table: a document carrying `$vocabulary` defines
 * a dialect for the whole process. {@link claimDialects} refuses a definition that would change a
 * dialect already defined (by hyperjump, another catalog or another schema), so a second
 * validator can never redefine the keywords of a first one.
 *
 * @since 0.1.0
 */
import {
  BASIC,
  buildSchemaDocument,
  compile,
  type CompiledSchema,
  getSchema,
  hasDialect,
  type SchemaDocument
} from "@hyperjump/json-schema/experimental"
import { InvalidSchemaError, type OutputUnit, setMetaSchemaOutputFormat } from "@hyperjump/json-schema/draft-2020-12"
import { DIALECT, unsupportedDialect } from "./dialect.ts"

// Meta-validation failures say where the schema is wrong. hyperjump's setting is process-wide; it
// only adds detail to the `InvalidSchemaError`s of other users of hyperjump in the process.
setMetaSchemaOutputFormat(BASIC)

/** hyperjump's built-in 2020-12 meta-schemas live under this prefix. */
const BUILT_IN = "https://json-schema.org/draft/2020-12/"

/** Built-in meta-schema documents, taken from hyperjump's registry as `getSchema` offers them. */
const builtIns: Record<string, SchemaDocument> = Object.create(null)

/**
 * Thrown by a document table for a document it does not hold.
 *
 * @category models
 * @since 0.1.0
 */
export class Unresolvable extends Error {
  readonly uri: string
  constructor(uri: string) {
    super(`no document ${uri}`)
    this.uri = uri
  }
}

/**
 * Thrown by a document table once the compile is past its deadline or abandoned.
 *
 * @category models
 * @since 0.1.0
 */
export class CompileTimedOut extends Error {}

/**
 * The documents a `$ref` may reach besides the schema's own: the validator's catalog.
 *
 * @category models
 * @since 0.1.0
 */
export interface Catalog {
  /** Catalog documents by retrieval URI. */
  readonly documents: Readonly<Record<string, SchemaDocument>>
  /** Resources embedded in catalog documents (`$id` below the root), by URI. */
  readonly embedded: Readonly<Record<string, SchemaDocument>>
  /** Dialects the catalog defines (meta-schemas with `$vocabulary`), usable as `$schema`. */
  readonly dialects: ReadonlySet<string>
}

interface Deadline {
  readonly at: number
  readonly signal: AbortSignal | undefined
}

/**
 * hyperjump's `_cache`: the catalog first (as hyperjump looks its cache up before a document's
 * embedded resources), then the built-in meta-schemas, then the schema being compiled and its
 * embedded resources, then resources embedded in catalog documents. Writes are ignored except
 * built-in meta-schemas copied from hyperjump's registry; other registered schemas stay invisible.
 * Every lookup (each `$ref` followed) also checks the deadline: hyperjump's compile chains promises
 * without ever yielding to the event loop, so a timer alone could not stop it.
 */
const documentTable = (catalog: Catalog, local: Readonly<Record<string, SchemaDocument>>, deadline: Deadline) =>
  new Proxy(Object.create(null) as Record<string, SchemaDocument>, {
    get: (_target, key) => {
      if (typeof key !== "string") return undefined
      if (deadline.signal?.aborted === true || performance.now() >= deadline.at) throw new CompileTimedOut()
      const found = catalog.documents[key] ?? builtIns[key] ?? local[key] ?? catalog.embedded[key]
      if (found === undefined) throw new Unresolvable(key)
      return found
    },
    // Only hyperjump's registry copy asks, to fill in what is missing: answer for the built-ins alone.
    has: (_target, key) => typeof key === "string" && key in builtIns,
    set: (_target, key, value) => {
      if (typeof key === "string" && key.startsWith(BUILT_IN) && !(key in builtIns)) builtIns[key] = value as SchemaDocument
      return true
    }
  })

const embeddedOf = (document: SchemaDocument): Readonly<Record<string, SchemaDocument>> =>
  (document as unknown as { readonly embedded: Readonly<Record<string, SchemaDocument>> }).embedded

/**
 * Compiles one schema under its retrieval URI. Rejects with {@link Unresolvable},
 * {@link CompileTimedOut} or hyperjump's own errors (see {@link describe}).
 *
 * @category combinators
 * @since 0.1.0
 */
export const compileSchema = async (
  schema: unknown,
  retrievalUri: string,
  catalog: Catalog,
  deadline: Deadline
): Promise<CompiledSchema> => {
  const unsupported = unsupportedDialect(schema, catalog.dialects)
  if (unsupported !== undefined) throw new Error(unsupported)
  const claimed = claimDialects(schema, retrievalUri)
  if (typeof claimed === "string") throw new Error(claimed)
  const document = buildSchemaDocument(schema as never, retrievalUri, DIALECT)
  const local: Record<string, SchemaDocument> = Object.assign(Object.create(null), embeddedOf(document))
  local[retrievalUri] = document
  const browser = await getSchema(retrievalUri, { _cache: documentTable(catalog, local, deadline) } as never)
  return compile(browser)
}

/**
 * Builds the catalog's documents, then compiles each one (and an empty schema, which compiles the
 * 2020-12 meta-schema once), so that an invalid document fails when the validator is made rather
 * than when a tool first refers to it. Rejects with an `Error` whose message names the document.
 *
 * @category combinators
 * @since 0.1.0
 */
export const loadCatalog = async (
  entries: ReadonlyArray<readonly [uri: string, document: unknown]>,
  warmUpUri: string,
  deadline: Deadline
): Promise<Catalog> => {
  const documents: Record<string, SchemaDocument> = Object.create(null)
  const embedded: Record<string, SchemaDocument> = Object.create(null)
  const dialects = new Set<string>()
  const refuse = (uri: string, reason: string) => new Error(`catalog document ${JSON.stringify(uri)}: ${reason}`)
  for (const [uri, document] of entries) {
    const claimed = claimDialects(document, uri)
    if (typeof claimed === "string") throw refuse(uri, claimed)
    let built: SchemaDocument
    try {
      built = buildSchemaDocument(document as never, uri, DIALECT)
    } catch (error) {
      throw refuse(uri, describe(error))
    }
    const ids = [uri, ...Object.keys(embeddedOf(built))]
    const builtIn = ids.find((id) => id.startsWith(BUILT_IN))
    if (builtIn !== undefined) {
      throw refuse(uri, `${JSON.stringify(builtIn)} is one of hyperjump's built-in 2020-12 meta-schemas; leave it out of the catalog`)
    }
    documents[uri] = built
    for (const [id, resource] of Object.entries(embeddedOf(built))) embedded[id] ??= resource
    for (const id of claimed) dialects.add(id)
  }
  const catalog: Catalog = { documents, embedded, dialects }
  await compileSchema({}, warmUpUri, catalog, deadline)
  for (const uri of Object.keys(documents)) {
    try {
      await compile(await getSchema(uri, { _cache: documentTable(catalog, {}, deadline) } as never))
    } catch (error) {
      if (error instanceof CompileTimedOut) throw error
      throw refuse(uri, describe(error))
    }
  }
  return catalog
}

/** Dialects defined through this module: URI → the defining resource, as JSON. */
const claimed = new Map<string, string>()

/**
 * hyperjump loads the dialect of every resource carrying `$vocabulary` into a process-wide table
 * when the document is built. Refuses (the reason) a definition that would replace a dialect
 * already defined differently; otherwise records the definitions and returns the dialect URIs.
 *
 * @category combinators
 * @since 0.1.0
 */
export const claimDialects = (document: unknown, retrievalUri: string): ReadonlyArray<string> | string => {
  const found: Array<readonly [id: string, json: string]> = []
  const stack: Array<readonly [value: unknown, base: string]> = [[document, retrievalUri]]
  while (stack.length > 0) {
    const [value, parentBase] = stack.pop()!
    if (typeof value !== "object" || value === null) continue
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, parentBase])
      continue
    }
    const record = value as Record<string, unknown>
    const id = typeof record["$id"] === "string" ? resolve(record["$id"], parentBase) : undefined
    const base = id ?? parentBase
    if (typeof record["$vocabulary"] === "object" && record["$vocabulary"] !== null && (id !== undefined || value === document)) {
      found.push([base, JSON.stringify(record)])
    }
    for (const item of Object.values(record)) stack.push([item, base])
  }
  for (const [id, json] of found) {
    const previous = claimed.get(id)
    if (previous === json) continue
    if (previous !== undefined || hasDialect(id) || id.startsWith(BUILT_IN)) {
      return `it defines the dialect ${JSON.stringify(id)} (a meta-schema with $vocabulary), which this process ` +
        "already defines differently; hyperjump's dialects are process-wide, so a dialect URI can have only one definition"
    }
  }
  for (const [id, json] of found) claimed.set(id, json)
  return found.map(([id]) => id)
}

const resolve = (reference: string, base: string): string => {
  try {
    const url = new URL(reference, base)
    url.hash = ""
    return url.href
  } catch {
    return reference
  }
}

/**
 * A refusal message for a compile error: where a schema is invalid, which reference cannot be
 * resolved, or hyperjump's own message.
 *
 * @category combinators
 * @since 0.1.0
 */
export const describe = (error: unknown): string => {
  if (error instanceof Unresolvable) {
    return `$ref to ${JSON.stringify(error.uri)} cannot be resolved: it is neither in the schema nor in the registered ` +
      "catalog, and @snodo/json-schema never fetches (register the document with JsonSchemaValidator.layer({ catalog }))"
  }
  if (error instanceof InvalidSchemaError) {
    const where = (error.output.errors ?? [])
      .filter((unit: OutputUnit) => !/\/(allOf|anyOf|\$ref|\$dynamicRef)$/.test(unit.absoluteKeywordLocation))
      .slice(0, 3)
      .map((unit: OutputUnit) => {
        const location = unit.instanceLocation.slice(unit.instanceLocation.indexOf("#")) || "#"
        const keyword = unit.absoluteKeywordLocation.slice(unit.absoluteKeywordLocation.lastIndexOf("/") + 1)
        return `${decodeURI(location)} (meta-schema keyword "${keyword}")`
      })
    return `the schema is not valid Draft 2020-12${where.length > 0 ? ` at ${where.join(", ")}` : ""}`
  }
  if (error instanceof Error) return error.message
  return String(error)
}
