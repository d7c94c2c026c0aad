/**
 * The catalog: every registered component, validated and compiled once.
 *
 * Building a catalog refuses duplicate names and URIs, overlapping resource templates and schemas
 * that do not compile, naming the component and the reason. Tool input/output decoders and the wire
 * descriptions for the four lists are computed here, so that serving a list or a call repeats no
 * schema work; a tool schema that is a struct of primitive fields, which passes every check whatever
 * it is, has its JSON Schema derived when `tools/list` first reads it (once), not at start.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Catalog from "@snodo/core/Catalog"
 * import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
 *
 * const catalog = Catalog.make([add, echo]).pipe(Effect.provide(BasicJsonSchema.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Result, Schema, SchemaIssue } from "effect"
import * as ComponentOptions from "./ComponentOptions.ts"
import * as PlainCodec from "../pipeline/internal/PlainCodec.ts"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import * as Pagination from "./Pagination.ts"
import * as PlainStruct from "./internal/PlainStruct.ts"
import * as SchemaOrigin from "./internal/SchemaOrigin.ts"
import * as Prompt from "./Prompt.ts"
import type * as Resource from "./Resource.ts"
import type * as ResourceTemplate from "./ResourceTemplate.ts"
import { type CompiledSchema, type JsonSchemaDocument, SchemaValidator, type ValidationIssue } from "./SchemaValidator.ts"
import { jsonSchemaOf } from "./internal/JsonSchemaOf.ts"
import type * as Tool from "./Tool.ts"
import * as UriTemplate from "./internal/UriTemplate.ts"

/**
 * Raised when the catalog cannot be built.
 *
 * @category errors
 * @since 0.1.0
 */
export class CatalogError extends Schema.TaggedError<CatalogError>()("CatalogError", {
  message: Schema.String
}) {}

/**
 * A component the catalog accepts.
 *
 * @category models
 * @since 0.1.0
 */
export type Component =
  | Tool.Tool<unknown>
  | Resource.Resource<unknown>
  | ResourceTemplate.ResourceTemplate<unknown>
  | Prompt.Prompt<unknown>

/**
 * The outcome of decoding input or checking output: the (decoded or encoded) value, or the issues
 * that name where and which rule failed, never the value.
 *
 * @category models
 * @since 0.1.0
 */
export type Checked = Result.Result<unknown, ReadonlyArray<ValidationIssue>>

/**
 * A tool's declared failures, compiled once.
 *
 * @category models
 * @since 0.1.0
 */
export interface CompiledFailure {
  /** Whether a typed failure is one the `failure` schema declares. */
  readonly declares: (error: unknown) => boolean
  /** The failure encoded as JSON with the schema. */
  readonly encode: (error: unknown) => Checked
}

/**
 * A tool's input and output checks.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolChecks {
  readonly decodeInput: (args: unknown) => Checked
  /** Checks (and for Effect Schemas, encodes) a handler's value; `undefined` when no output is declared. */
  readonly encodeOutput: ((value: unknown) => Checked) | undefined
  /** Checks `structuredContent` of an explicit `ToolResult` (already JSON) against the output. */
  readonly checkStructured: ((value: unknown) => Checked) | undefined
}

/**
 * A tool ready to call.
 *
 * @category models
 * @since 0.1.0
 */
export interface CompiledTool {
  readonly tool: Tool.Tool<unknown>
  /** The `tools/list` entry. */
  readonly wire: Readonly<Record<string, unknown>>
  /**
   * The tool's checks, ready when the catalog is built; or, when the tool has a raw JSON Schema and
   * the `SchemaValidator` defers compiling (it has a `precheck`), the Effect that compiles its
   * schemas when a call first needs them, once: that outcome (a refusal included) serves every
   * later call. A call to a tool whose checks are ready runs no Effect to get them.
   */
  readonly checks: ToolChecks | Effect.Effect<ToolChecks, CatalogError>
  /** The `failure` schema, if declared. */
  readonly failure: CompiledFailure | undefined
  /** Parameters mirrored into `Mcp-Param-*` HTTP headers (`x-mcp-header`), checked by the HTTP transport. */
  readonly headerParams: ReadonlyArray<HeaderParams.HeaderParam>
}

/**
 * A template ready to match.
 *
 * @category models
 * @since 0.1.0
 */
interface CompiledTemplate {
  readonly template: ResourceTemplate.ResourceTemplate<unknown>
  readonly parsed: UriTemplate.UriTemplate
}

/**
 * The built catalog.
 *
 * @category models
 * @since 0.1.0
 */
export interface Catalog {
  readonly tools: ReadonlyMap<string, CompiledTool>
  readonly resources: ReadonlyMap<string, Resource.Resource<unknown>>
  readonly templates: ReadonlyArray<CompiledTemplate>
  readonly prompts: ReadonlyMap<string, Prompt.Prompt<unknown>>
  readonly lists: {
    readonly tools: Pagination.PagedList<Readonly<Record<string, unknown>>>
    readonly resources: Pagination.PagedList<Readonly<Record<string, unknown>>>
    readonly templates: Pagination.PagedList<Readonly<Record<string, unknown>>>
    readonly prompts: Pagination.PagedList<Readonly<Record<string, unknown>>>
  }
}

const pointerOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => "/" + String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("")

const standardFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Schema issues as validation issues: path and rule, never the value (issues are created without
 * `reportInput`, so no formatter message quotes the input).
 */
const issuesOf = (issue: SchemaIssue.Issue): ReadonlyArray<ValidationIssue> =>
  standardFormatter(issue).issues.map((entry) => ({
    instancePath: pointerOf((entry.path ?? []).map((segment) =>
      typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
    )),
    keyword: "schema",
    message: entry.message
  }))

const jsonCodecOf = (schema: Schema.Top) => Schema.toCodecJson(schema) as unknown as Schema.Codec<unknown, unknown>

/**
 * A function of the schema's JSON codec, made now; or, for a struct of primitive fields
 * (internal/PlainStruct: its codec cannot fail to build, and the plain copy answers every value
 * that passes), when a value first needs the codec.
 */
const withCodec = <A>(schema: Schema.Top, make: (codec: Schema.Codec<unknown, unknown>) => A): () => A => {
  if (!PlainStruct.isPlainStruct(schema)) {
    const made = make(jsonCodecOf(schema))
    return () => made
  }
  let made: A | undefined
  return () => made ??= make(jsonCodecOf(schema))
}

/**
 * Decodes with the schema's JSON codec. `json`: the values decoded are JSON values (a tool's
 * arguments off the wire), which a plain function copies when they are what they should be
 * (pipeline/internal/PlainCodec); the codec's parser decides the rest.
 */
const effectDecoder = (schema: Schema.Top, json: boolean): (value: unknown) => Checked => {
  const decoder = withCodec(schema, (codec) => Schema.decodeUnknownExit(codec))
  const plain = json ? PlainCodec.compile(schema.ast, "decodeJson") : undefined
  return (value) => {
    if (plain !== undefined) {
      const copied = plain(value)
      if (copied !== PlainCodec.unsure) return Result.succeed(copied)
    }
    const exit = decoder()(value)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const issue = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    return Result.fail(issue ? issuesOf(issue.error.issue) : [{ instancePath: "", keyword: "schema", message: "Invalid input" }])
  }
}

/** Encodes with the schema's JSON codec; plain values are copied by a plain function (see {@link effectDecoder}). */
const effectEncoder = (schema: Schema.Top): (value: unknown) => Checked => {
  const encoder = withCodec(schema, (codec) => Schema.encodeUnknownExit(codec))
  const plain = PlainCodec.compile(schema.ast, "encodeJson")
  return (value) => {
    if (plain !== undefined) {
      const copied = plain(value)
      if (copied !== PlainCodec.unsure) return Result.succeed(copied)
    }
    const exit = encoder()(value)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const issue = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    return Result.fail(issue ? issuesOf(issue.error.issue) : [{ instancePath: "", keyword: "schema", message: "Invalid output" }])
  }
}

const jsonChecker = (compiled: CompiledSchema): (value: unknown) => Checked => (value) => {
  const result = compiled.validate(value)
  switch (result._tag) {
    case "Valid":
      return Result.succeed(value)
    case "Invalid":
      return Result.fail(result.issues)
    case "BudgetExceeded":
      return Result.fail([{ instancePath: "", keyword: "budget", message: result.message }])
  }
}

/**
 * `Schema.Struct({})` derives as "any non-null value"; arguments are always an object on the wire,
 * so the tool is advertised as taking an object with no declared properties.
 */
const isEmptyStruct = (schema: Schema.Top): boolean =>
  schema.ast._tag === "Objects" && schema.ast.propertySignatures.length === 0 && schema.ast.indexSignatures.length === 0

const advertisedSchemaOf = (schema: Schema.Top): unknown =>
  isEmptyStruct(schema) ? { type: "object", properties: {} } : jsonSchemaOf(schema, HeaderParams.annotationOptions)

const isObjectSchema = (schema: unknown): boolean =>
  typeof schema === "object" && schema !== null && (schema as Record<string, unknown>)["type"] === "object"

/**
 * Schemas compile one after the other, in registration order: compiling is CPU work on this thread
 * (concurrency measured no faster), the first refusal is deterministic, and each compile's time
 * limit measures that compile alone rather than the ones interleaved with it. A backend that defers
 * compiling is asked only for its `precheck` here; `compileJson` then runs at the first call.
 */
const compileJson = (
  validator: SchemaValidator["Service"],
  schema: Tool.SchemaSource & { readonly _tag: "Json" },
  refuse: (reason: string) => CatalogError,
  which: string
) =>
  validator.compile(schema.schema).pipe(
    Effect.mapError((error) => refuse(`${which} schema does not compile: ${error.message}`)),
    Effect.map(jsonChecker)
  )

/** A tool's checks, compiling its raw JSON Schemas (input first). */
const toolChecks = (tool: Tool.Tool<unknown>, validator: SchemaValidator["Service"], refuse: (reason: string) => CatalogError) =>
  Effect.gen(function*() {
    const decodeInput = tool.input._tag === "Effect"
      ? effectDecoder(tool.input.schema, true)
      : yield* compileJson(validator, tool.input, refuse, "input")
    const output = tool.output
    const encodeOutput = output === undefined
      ? undefined
      : output._tag === "Effect"
      ? effectEncoder(output.schema)
      : yield* compileJson(validator, output, refuse, "output")
    const checkStructured = output === undefined
      ? undefined
      : output._tag === "Effect"
      ? effectDecoder(output.schema, false)
      : encodeOutput
    const checks: ToolChecks = { decodeInput, encodeOutput, checkStructured }
    return checks
  })

/**
 * The tool's checks as {@link CompiledTool} holds them: compiled now, or, when the backend defers
 * compiling and the tool has a raw JSON Schema, prechecked now and compiled at the first call.
 */
const prepareChecks = Effect.fnUntraced(function*(
  tool: Tool.Tool<unknown>,
  validator: SchemaValidator["Service"],
  refuse: (reason: string) => CatalogError
): Effect.fn.Return<CompiledTool["checks"], CatalogError> {
  const raw = [["input", tool.input], ["output", tool.output]] as const
  const precheck = validator.precheck
  if (precheck === undefined || !raw.some(([, source]) => source?._tag === "Json")) {
    return yield* toolChecks(tool, validator, refuse)
  }
  for (const [which, source] of raw) {
    const refused = source?._tag === "Json" ? precheck(source.schema) : undefined
    if (refused !== undefined) return yield* refuse(`${which} schema does not compile: ${refused}`)
  }
  return yield* Effect.cached(toolChecks(tool, validator, refuse))
})

/**
 * A member of a `tools/list` entry computed when first read (then kept as a plain property, in its
 * place among the entry's keys): reading, spreading and serializing the entry see the same value
 * as if it had been set when the catalog was built.
 */
const defineDerived = (wire: Record<string, unknown>, key: string, derive: () => unknown): void => {
  const settle = (value: unknown) => {
    Object.defineProperty(wire, key, { value, writable: true, enumerable: true, configurable: true })
    return value
  }
  Object.defineProperty(wire, key, {
    get: () => settle(derive()),
    set: settle,
    enumerable: true,
    configurable: true
  })
}

/**
 * A tool's advertised JSON Schema: the raw one, derived now (and checked), or, for a struct whose
 * schema passes every check whatever it is (internal/PlainStruct), derived when `tools/list` first
 * reads it.
 */
type Advertised = { readonly _tag: "Now"; readonly schema: unknown } | { readonly _tag: "Later"; readonly schema: Schema.Top }

const advertisedOf = (source: Tool.SchemaSource): Advertised =>
  source._tag === "Json"
    ? { _tag: "Now", schema: source.schema }
    : PlainStruct.isPlainStruct(source.schema)
    ? { _tag: "Later", schema: source.schema }
    : { _tag: "Now", schema: advertisedSchemaOf(source.schema) }

const setAdvertised = (wire: Record<string, unknown>, key: string, advertised: Advertised): void => {
  if (advertised._tag === "Now") wire[key] = advertised.schema
  else defineDerived(wire, key, () => advertisedSchemaOf(advertised.schema))
}

const compileTool = Effect.fnUntraced(function*(tool: Tool.Tool<unknown>, validator: SchemaValidator["Service"]) {
  const refuse = (reason: string) => new CatalogError({ message: `Tool "${tool.name}": ${reason}` })
  for (const [which, source] of [["input", tool.input], ["output", tool.output]] as const) {
    if (source?._tag === "Effect" && !SchemaOrigin.isOurs(source.schema)) return yield* refuse(SchemaOrigin.anotherCopy(which))
  }
  if (tool.failure !== undefined && !SchemaOrigin.isOurs(tool.failure)) return yield* refuse(SchemaOrigin.anotherCopy("failure"))
  const checks = yield* prepareChecks(tool, validator, refuse)
  const input = advertisedOf(tool.input)
  if (input._tag === "Now" && !isObjectSchema(input.schema)) return yield* refuse("input schema must have type \"object\"")
  // A plain struct declares no `x-mcp-header` parameter.
  const headerParams = input._tag === "Now" ? HeaderParams.declarations(input.schema as JsonSchemaDocument) : []
  if ("_tag" in headerParams) return yield* refuse(headerParams.reason)
  const output = tool.output === undefined ? undefined : advertisedOf(tool.output)
  if (output !== undefined && output._tag === "Now" && !isObjectSchema(output.schema)) {
    return yield* refuse("output schema must have type \"object\"")
  }
  const { title, description, annotations, icons, _meta } = tool.description
  const wire: Record<string, unknown> = { name: tool.name }
  if (title !== undefined) wire["title"] = title
  if (description !== undefined) wire["description"] = description
  setAdvertised(wire, "inputSchema", input)
  if (output !== undefined) setAdvertised(wire, "outputSchema", output)
  if (annotations !== undefined) wire["annotations"] = annotations
  if (icons !== undefined) wire["icons"] = icons
  if (_meta !== undefined) wire["_meta"] = _meta
  const failure: CompiledFailure | undefined = tool.failure === undefined
    ? undefined
    : { declares: Schema.is(tool.failure), encode: effectEncoder(tool.failure) }
  const compiled: CompiledTool = { tool, wire, checks, failure, headerParams }
  return compiled
})

const withoutUndefined = (record: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value
  return out
}

const isAbsoluteUri = (uri: string): boolean => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)

/** How a refusal names a component. */
const describe = (component: Component): string =>
  "handler" in component
    ? `Tool "${component.name}"`
    : "render" in component
    ? `Prompt "${component.name}"`
    : "complete" in component
    ? `Resource template "${component.description.uriTemplate}"`
    : `Resource "${component.description.uri}"`

/**
 * Builds a catalog, or says why it cannot be built.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(
  components: ReadonlyArray<Component>,
  options?: { readonly pageSize?: number }
): Effect.fn.Return<Catalog, CatalogError, SchemaValidator> {
  const validator = yield* SchemaValidator
  const pageSize = options?.pageSize ?? Pagination.defaultPageSize
  const tools = new Map<string, CompiledTool>()
  const resources = new Map<string, Resource.Resource<unknown>>()
  const templates: Array<CompiledTemplate> = []
  const prompts = new Map<string, Prompt.Prompt<unknown>>()
  for (const component of components) {
    const limitsProblem = ComponentOptions.check(component.limits)
    if (limitsProblem !== undefined) return yield* new CatalogError({ message: `${describe(component)}: ${limitsProblem}` })
    if ("handler" in component) {
      if (tools.has(component.name)) return yield* new CatalogError({ message: `Duplicate tool name "${component.name}"` })
      tools.set(component.name, yield* compileTool(component, validator))
    } else if ("render" in component) {
      if (prompts.has(component.name)) return yield* new CatalogError({ message: `Duplicate prompt name "${component.name}"` })
      if (component.argumentsSchema !== undefined && !SchemaOrigin.isOurs(component.argumentsSchema)) {
        return yield* new CatalogError({ message: `Prompt "${component.name}": ${SchemaOrigin.anotherCopy("arguments")}` })
      }
      const problems = component.argumentsSchema === undefined ? [] : Prompt.argumentsProblems(component.argumentsSchema)
      if (problems.length > 0) return yield* new CatalogError({ message: `Prompt "${component.name}": ${problems.join("; ")}` })
      prompts.set(component.name, component)
    } else if ("complete" in component) {
      const source = component.description.uriTemplate
      const parsed = UriTemplate.parse(source)
      if (parsed instanceof UriTemplate.UriTemplateError) {
        return yield* new CatalogError({ message: `Resource template "${source}": ${parsed.reason}` })
      }
      const stray = Object.keys(component.complete).find((name) => !parsed.variables.includes(name))
      if (stray !== undefined) {
        return yield* new CatalogError({
          message: `Resource template "${source}": completion for "${stray}", which is not one of its variables (${parsed.variables.join(", ")})`
        })
      }
      const clash = templates.find((other) => UriTemplate.overlaps(other.parsed, parsed))
      if (clash) {
        return yield* new CatalogError({ message: `Resource template "${source}" overlaps "${clash.parsed.source}"` })
      }
      templates.push({ template: component, parsed })
    } else {
      const uri = component.description.uri
      if (!isAbsoluteUri(uri)) return yield* new CatalogError({ message: `Resource URI "${uri}" is not absolute` })
      if (resources.has(uri)) return yield* new CatalogError({ message: `Duplicate resource URI "${uri}"` })
      resources.set(uri, component)
    }
  }
  for (const uri of resources.keys()) {
    const clash = templates.find((template) => UriTemplate.matchesExact(template.parsed, uri))
    if (clash) {
      return yield* new CatalogError({ message: `Resource "${uri}" is also matched by template "${clash.parsed.source}"` })
    }
  }
  const promptWire = [...prompts.values()].map((prompt) =>
    withoutUndefined({
      name: prompt.name,
      ...prompt.description,
      arguments: prompt.arguments.length === 0 ? undefined : prompt.arguments.map(withoutUndefined)
    })
  )
  return {
    tools,
    resources,
    templates,
    prompts,
    lists: {
      tools: Pagination.makeList([...tools.values()].map((tool) => tool.wire), pageSize),
      resources: Pagination.makeList([...resources.values()].map((resource) => withoutUndefined(resource.description)), pageSize),
      templates: Pagination.makeList(templates.map((template) => withoutUndefined(template.template.description)), pageSize),
      prompts: Pagination.makeList(promptWire, pageSize)
    }
  }
})

/**
 * Finds the template that matches a URI, with the variables it bound.
 *
 * @category combinators
 * @since 0.1.0
 */
export const matchTemplate = (
  catalog: Catalog,
  uri: string
): { readonly template: CompiledTemplate; readonly variables: Readonly<Record<string, string | ReadonlyArray<string>>> } | undefined => {
  for (const template of catalog.templates) {
    const variables = UriTemplate.match(template.parsed, uri)
    if (variables !== undefined) return { template, variables }
  }
  return undefined
}
