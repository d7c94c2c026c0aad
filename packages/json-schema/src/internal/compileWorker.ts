/**
 * The compile thread of `JsonSchemaValidator`.
 *
 * hyperjump's compiler is asynchronous (it walks `$ref`s through promises even when every document
 * is in memory) while the `SchemaValidator` seam compiles synchronously. This worker owns the
 * asynchronous part: the main thread posts a schema, blocks on a shared signal, and reads the
 * serialized compiled schema back with `receiveMessageOnPort`. Validation itself never comes here.
 *
 * Runs directly on Node (type stripping), so it imports nothing but hyperjump and Node built-ins.
 *
 * @since 0.1.0
 */
import { removeUriSchemePlugin } from "@hyperjump/browser"
import {
  BASIC,
  buildSchemaDocument,
  compile,
  getSchema,
  hasDialect,
  serialize,
  type SchemaDocument
} from "@hyperjump/json-schema/experimental"
import { InvalidSchemaError, type OutputUnit, setMetaSchemaOutputFormat } from "@hyperjump/json-schema/draft-2020-12"
import { type MessagePort, workerData } from "node:worker_threads"
import type { CompileReply, CompileRequest, WorkerData } from "./protocol.ts"

// Never retrieve anything: a `$ref` resolves within the schema, the catalog or hyperjump's
// built-in meta-schemas, or the compile fails.
removeUriSchemePlugin("http")
removeUriSchemePlugin("https")
removeUriSchemePlugin("file")
// Meta-validation failures say where the schema is wrong.
setMetaSchemaOutputFormat(BASIC)

const DIALECT = "https://json-schema.org/draft/2020-12/schema"

const { port, signal: signalBuffer, catalog } = workerData as WorkerData & { readonly port: MessagePort }
const signal = new Int32Array(signalBuffer)

const reply = (message: CompileReply): void => {
  port.postMessage(message)
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
}

const describe = (error: unknown): string => {
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
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause : undefined
    if (error.name === "RetrievalError") {
      const unresolved = /'([^']*)'/.exec(error.message)?.[1] ?? "a reference"
      const reason = cause?.name === "UnsupportedUriSchemeError"
        ? "it is neither in the schema nor in the registered catalog, and @snodo/json-schema never fetches"
        : cause?.message ?? "it cannot be resolved"
      return `$ref to ${JSON.stringify(unresolved)} cannot be resolved: ${reason}` +
        " (register the document with JsonSchemaValidator.layer({ catalog }))"
    }
    return error.message
  }
  return String(error)
}

const dialectOf = (schema: unknown): string | undefined =>
  typeof schema === "object" && schema !== null && typeof (schema as Record<string, unknown>)["$schema"] === "string"
    ? (schema as Record<string, string>)["$schema"]
    : undefined

const cache: Record<string, SchemaDocument> = {}
let initError: string | undefined
for (const [uri, document] of catalog) {
  try {
    cache[uri] = buildSchemaDocument(document as never, uri, DIALECT)
  } catch (error) {
    initError ??= `catalog document ${JSON.stringify(uri)}: ${describe(error)}`
  }
}

/**
 * Compiles every catalog document once, so that an invalid one fails at startup rather than when a
 * tool first refers to it; this also compiles the 2020-12 meta-schema before the first tool.
 */
const checkCatalog = async (): Promise<string | undefined> => {
  await compileOne({ id: -1, schema: {}, retrievalUri: "https://schemas.snodo.invalid/warm-up" })
  for (const uri of Object.keys(cache)) {
    try {
      await compile(await getSchema(uri, { _cache: { ...cache } } as never))
    } catch (error) {
      return `catalog document ${JSON.stringify(uri)}: ${describe(error)}`
    }
  }
  return undefined
}

const compileOne = async (request: CompileRequest): Promise<CompileReply> => {
  const declared = dialectOf(request.schema)
  if (declared !== undefined && !hasDialect(declared.replace(/#$/, ""))) {
    return {
      id: request.id,
      ok: false,
      message: `the dialect ${JSON.stringify(declared)} is not supported; @snodo/json-schema supports Draft 2020-12 ` +
        `(https://json-schema.org/draft/2020-12/schema) and dialects registered in its catalog`
    }
  }
  const document = buildSchemaDocument(request.schema as never, request.retrievalUri, DIALECT)
  const browser = await getSchema(request.retrievalUri, { _cache: { ...cache, [request.retrievalUri]: document } } as never)
  const compiled = await compile(browser)
  return { id: request.id, ok: true, compiled: serialize(compiled) }
}

port.on("message", (request: CompileRequest | { readonly id: number; readonly init: true }) => {
  if ("init" in request) {
    if (initError !== undefined) return reply({ id: request.id, ok: false, message: initError })
    checkCatalog().then(
      (message) => reply(message === undefined ? { id: request.id, ok: true, compiled: "" } : { id: request.id, ok: false, message }),
      (error: unknown) => reply({ id: request.id, ok: false, message: describe(error) })
    )
    return
  }
  compileOne(request).then(reply, (error: unknown) => reply({ id: request.id, ok: false, message: describe(error) }))
})
