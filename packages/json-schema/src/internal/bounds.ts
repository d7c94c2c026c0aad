/**
 * Static bounds on a schema (SEP-2106), checked when it is compiled: the raw document's size and
 * depth before hyperjump sees it, then `$ref` depth and composition breadth and nesting on the
 * compiled form, where every reference is resolved.
 *
 * @since 0.1.0
 */

/**
 * The static limits.
 *
 * @category models
 * @since 0.1.0
 */
export interface StaticLimits {
  readonly maxSchemaNodes: number
  readonly maxSchemaDepth: number
  readonly maxRefDepth: number
  readonly maxCompositionBreadth: number
  readonly maxCompositionDepth: number
}

/**
 * Checks that the raw document is plain JSON within the size and depth limits; the message of a
 * refusal, or `undefined`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkDocument = (schema: unknown, limits: StaticLimits): string | undefined => {
  let nodes = 0
  // Iterative, so a hostile depth cannot overflow the stack before the depth limit applies.
  const stack: Array<readonly [value: unknown, depth: number, path: string]> = [[schema, 0, ""]]
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop()!
    if (++nodes > limits.maxSchemaNodes) {
      return `the schema exceeds ${limits.maxSchemaNodes} JSON values (maxSchemaNodes)`
    }
    if (depth > limits.maxSchemaDepth) {
      return `the schema nests deeper than ${limits.maxSchemaDepth} levels at ${pointerText(path)} (maxSchemaDepth)`
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push([value[index], depth + 1, `${path}/${index}`])
    } else if (typeof value === "object" && value !== null) {
      const prototype = Object.getPrototypeOf(value)
      if (prototype !== Object.prototype && prototype !== null) {
        return `the schema contains a value that is not JSON at ${pointerText(path)}`
      }
      const entries = Object.entries(value)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!
        stack.push([item, depth + 1, `${path}/${escapePointer(key)}`])
      }
    } else if (!(value === null || typeof value === "string" || typeof value === "boolean" || Number.isFinite(value))) {
      return `the schema contains a value that is not JSON at ${pointerText(path)}`
    }
  }
  return undefined
}

type AstNode = ReadonlyArray<readonly [keywordId: string, location: string, value: unknown]> | boolean

/**
 * The compiled form's shape as far as the analysis needs it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ast {
  readonly metaData: Readonly<Record<string, { readonly dynamicAnchors: Readonly<Record<string, string>> }>>
  readonly [url: string]: unknown
}

const KEYWORD = "https://json-schema.org/keyword/"

/** In-place applicators: they evaluate a subschema against the same instance location. */
const REFERENCE = new Set([`${KEYWORD}ref`, `${KEYWORD}draft-2020-12/dynamicRef`])
const COMPOSITION = new Set([
  `${KEYWORD}allOf`,
  `${KEYWORD}anyOf`,
  `${KEYWORD}oneOf`,
  `${KEYWORD}not`,
  `${KEYWORD}if`,
  `${KEYWORD}then`,
  `${KEYWORD}else`,
  `${KEYWORD}dependentSchemas`
])
const BREADTH = new Set([`${KEYWORD}allOf`, `${KEYWORD}anyOf`, `${KEYWORD}oneOf`])
/** Applicators that move to a child of the instance (a cycle through them is bounded by the instance). */
const DESCENDING = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems"
].map((name) => `${KEYWORD}${name}`))

interface Edge {
  readonly to: string
  readonly reference: boolean
  readonly composition: boolean
}

/** Every string in a keyword's compiled value that names a compiled schema. */
const schemaUrls = (value: unknown, ast: Ast, into: Array<string>): Array<string> => {
  if (typeof value === "string") {
    if (Object.hasOwn(ast, value) && value !== "metaData" && value !== "plugins") into.push(value)
  } else if (Array.isArray(value)) {
    for (const item of value) schemaUrls(item, ast, into)
  } else if (typeof value === "object" && value !== null && !(value instanceof RegExp)) {
    for (const item of Object.values(value)) schemaUrls(item, ast, into)
  }
  return into
}

const pushEdges = (keywordId: string, value: unknown, ast: Ast, inPlace: Array<Edge>, descending: Array<string>) => {
  const reference = REFERENCE.has(keywordId)
  const composition = COMPOSITION.has(keywordId)
  if (reference || composition) {
    const targets = schemaUrls(value, ast, [])
    if (keywordId === `${KEYWORD}draft-2020-12/dynamicRef` && Array.isArray(value)) {
      // The target depends on the dynamic scope: consider every anchor of that name.
      const fragment = value[1]
      for (const meta of Object.values(ast.metaData)) {
        const target = typeof fragment === "string" ? meta.dynamicAnchors[fragment] : undefined
        if (target !== undefined && Object.hasOwn(ast, target)) targets.push(target)
      }
    }
    for (const to of targets) inPlace.push({ to, reference, composition })
  } else if (DESCENDING.has(keywordId)) {
    schemaUrls(value, ast, descending)
  }
}

/**
 * Checks `$ref` depth, composition breadth and nesting on a compiled schema, and refuses a cycle of
 * references that never moves into the instance (it would recurse forever); the message of a
 * refusal, or `undefined`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkCompiled = (ast: Ast, root: string, limits: StaticLimits): string | undefined => {
  const inPlaceEdges = new Map<string, Array<Edge>>()
  // Reachable schemas only: definitions nothing refers to are never evaluated.
  const pending = [root]
  while (pending.length > 0) {
    const url = pending.pop()!
    if (inPlaceEdges.has(url)) continue
    const node = ast[url] as AstNode | undefined
    const inPlace: Array<Edge> = []
    const descending: Array<string> = []
    if (Array.isArray(node)) {
      for (const [keywordId, location, value] of node) {
        if (BREADTH.has(keywordId) && Array.isArray(value) && value.length > limits.maxCompositionBreadth) {
          return `${keywordName(location)} at ${locationText(location)} has ${value.length} subschemas, more than ` +
            `${limits.maxCompositionBreadth} (maxCompositionBreadth)`
        }
        pushEdges(keywordId, value, ast, inPlace, descending)
      }
    }
    inPlaceEdges.set(url, inPlace)
    for (const edge of inPlace) pending.push(edge.to)
    pending.push(...descending)
  }

  // Longest in-place chains, counting references and compositions separately (memoized DFS).
  const done = new Map<string, { readonly references: number; readonly compositions: number }>()
  const active = new Set<string>()
  let refusal: string | undefined
  const visit = (url: string): { readonly references: number; readonly compositions: number } => {
    const known = done.get(url)
    if (known !== undefined) return known
    if (active.has(url)) {
      refusal ??= `the schema at ${locationText(url)} refers back to itself without moving into the instance ` +
        "(a $ref cycle that would never terminate)"
      return { references: 0, compositions: 0 }
    }
    // Every in-place step is a reference or a composition, so a longer active chain already
    // exceeds a limit: refusing here also bounds the recursion.
    if (active.size > limits.maxRefDepth + limits.maxCompositionDepth) {
      refusal ??= `in-place subschemas chain more than ${limits.maxRefDepth + limits.maxCompositionDepth} deep ` +
        `at ${locationText(url)} (maxRefDepth + maxCompositionDepth)`
      return { references: 0, compositions: 0 }
    }
    active.add(url)
    let references = 0
    let compositions = 0
    for (const edge of inPlaceEdges.get(url) ?? []) {
      const below = visit(edge.to)
      references = Math.max(references, below.references + (edge.reference ? 1 : 0))
      compositions = Math.max(compositions, below.compositions + (edge.composition ? 1 : 0))
    }
    active.delete(url)
    const result = { references, compositions }
    done.set(url, result)
    if (refusal === undefined && references > limits.maxRefDepth) {
      refusal = `$ref chain from ${locationText(url)} is ${references} references deep, more than ${limits.maxRefDepth} (maxRefDepth)`
    }
    if (refusal === undefined && compositions > limits.maxCompositionDepth) {
      refusal = `composition keywords nest ${compositions} deep from ${locationText(url)}, more than ` +
        `${limits.maxCompositionDepth} (maxCompositionDepth)`
    }
    return result
  }
  for (const url of inPlaceEdges.keys()) {
    visit(url)
    if (refusal !== undefined) return refusal
  }
  return undefined
}

const keywordName = (location: string): string => `"${location.slice(location.lastIndexOf("/") + 1)}"`

/** A schema location as a JSON Pointer fragment, without the internal retrieval URI. */
const locationText = (url: string): string => {
  const hash = url.indexOf("#")
  const fragment = hash === -1 ? "" : url.slice(hash + 1)
  const base = hash === -1 ? url : url.slice(0, hash)
  const shown = safeDecode(fragment)
  return base.startsWith(INTERNAL_BASE) ? pointerText(shown) : `${base}#${shown}`
}

/**
 * The retrieval URIs given to the schemas being compiled (never dereferenced).
 *
 * @category constants
 * @since 0.1.0
 */
export const INTERNAL_BASE = "https://schemas.snodo.invalid/"

const pointerText = (pointer: string): string => `"#${pointer}"`

const escapePointer = (segment: string): string => segment.replaceAll("~", "~0").replaceAll("/", "~1")

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
