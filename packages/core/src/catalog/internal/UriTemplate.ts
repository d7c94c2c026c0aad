/**
 * URI templates for MCP resource templates: the RFC 6570 subset a server needs to route
 * `resources/read` by URI, and to refuse overlapping registrations.
 *
 * Supported expressions: `{var}`, `{+var}`, `{/var}`, `{/var*}`, `{?a,b}` and `{&c}`. Everything else
 * (other operators, prefix modifiers, explode outside `{/var*}`, several variables outside query
 * expressions, pct-encoded variable names, non-ASCII literals) is refused by {@link parse} with a
 * reason, as are templates over 1 KiB (UTF-8), over 32 variables, with duplicate variables, or with
 * two expressions whose boundary could not be told apart (`{a}{b}`, `{+path}{?q}`).
 *
 * Matching rules (each one is what RFC 6570 expansion can produce, so `match(expand(t, v))` round-trips):
 *
 * - `{var}` and `{/var}`: one or more unreserved characters or pct-encoded triplets (never `/`, `?`, `#`).
 * - `{+var}`: one or more unreserved or reserved characters or pct-encoded triplets (so `/` too).
 * - `{/var*}`: zero or more `/`-prefixed non-empty segments, returned as an array.
 * - `{?a,b}` / `{&c}`: `name=value` pairs in template order; each one may be absent (then it is absent
 *   from the result); values may be empty; unknown or reordered parameters do not match.
 * - Literals compare verbatim (no case folding, no pct normalization).
 * - Values are percent-decoded as UTF-8; a value that does not decode means no match.
 * - When a literal could end a variable at several places (`{name}.json` against `a.b.json`), earlier
 *   variables take the longest value, as a backtracking regex would; here it is computed without
 *   backtracking, in time linear in the URI (for a template of bounded size).
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = UriTemplate.parse("test://template/{id}/data")
 * if (UriTemplate.isUriTemplate(t)) {
 *   UriTemplate.match(t, "test://template/123/data") // { id: "123" }
 *   UriTemplate.expand(t, { id: "a b" }) // "test://template/a%20b/data"
 * }
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import {
  charTable,
  compile,
  encoder,
  HEX,
  isHexAt,
  liveness,
  LITERAL,
  matchProgram,
  overlapsPrograms,
  PERCENT,
  type Program,
  RESERVED_CHARS,
  RESERVED_OR_UNRESERVED,
  UNRESERVED,
  UNRESERVED_CHARS,
  VARNAME
} from "../UriTemplateMatcher.ts"
import type { MatchResult, Operator, Part } from "../UriTemplateMatcher.ts"

export type { MatchResult, Operator, Part } from "../UriTemplateMatcher.ts"

/**
 * The largest template accepted, in UTF-8 bytes.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_TEMPLATE_BYTES = 1024

/**
 * The most variables one template may declare.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_VARIABLES = 32

/**
 * Why a template string was refused. `reason` names the offending piece and never needs the
 * template to be read back.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const r = UriTemplate.parse("file:///{#frag}")
 * if (r._tag === "UriTemplateError") console.error(r.reason)
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UriTemplateError extends Schema.TaggedError<UriTemplateError>()("UriTemplateError", {
  template: Schema.String,
  reason: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Invalid URI template: ${this.reason}`
  }
}

/**
 * A parsed, validated template. Build one with {@link parse}.
 *
 * @category models
 * @since 0.1.0
 */
export interface UriTemplate {
  readonly _tag: "UriTemplate"
  /** The template exactly as given. */
  readonly source: string
  readonly parts: ReadonlyArray<Part>
  /** Variable names in template order. */
  readonly variables: ReadonlyArray<string>
}

/**
 * Values for {@link expand}; `undefined` (or a missing key, or an empty array) leaves the variable
 * undefined in the RFC 6570 sense.
 *
 * @category models
 * @since 0.1.0
 */
export type ExpandValues = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

// ---- Parsing

const internals = new WeakMap<UriTemplate, Program>()

const programOf = (t: UriTemplate): Program => {
  const known = internals.get(t)
  if (known !== undefined) return known
  const reparsed = parse(t.source)
  if (reparsed._tag === "UriTemplateError") throw reparsed
  return internals.get(reparsed)!
}

const describeChar = (s: string, i: number): string => {
  const cp = s.codePointAt(i)!
  return cp >= 0x21 && cp < 0x7f ? JSON.stringify(String.fromCharCode(cp)) : `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`
}

const parseExpression = (body: string): Part | string => {
  const where = `"{${body}}"`
  if (body.length === 0) return `empty expression "{}"`
  const first = body[0]!
  let operator: Operator = ""
  let list = body
  if (first === "+" || first === "/" || first === "?" || first === "&") {
    operator = first
    list = body.slice(1)
  } else if ("#.;=,!@|".includes(first)) {
    return `operator "${first}" in ${where} is not supported (supported: {var}, {+var}, {/var}, {/var*}, {?a,b}, {&a,b})`
  }
  const specs = list.split(",")
  const variables: Array<{ name: string; explode: boolean }> = []
  for (const spec of specs) {
    let name = spec
    const explode = name.endsWith("*")
    if (explode) name = name.slice(0, -1)
    const colon = name.indexOf(":")
    if (colon !== -1) return `prefix modifier "${name.slice(colon)}" in ${where} is not supported`
    if (!VARNAME.test(name)) {
      return `invalid variable name ${JSON.stringify(name)} in ${where} (use letters, digits, "_" and inner ".")`
    }
    if (explode && operator !== "/") {
      return `explode modifier "*" in ${where} is only supported in path expressions ({/var*})`
    }
    variables.push({ name, explode })
  }
  if (variables.length > 1 && operator !== "?" && operator !== "&") {
    return `${where} lists several variables; only query expressions ({?a,b} and {&a,b}) may`
  }
  return { _tag: "Expression", operator, variables, source: `{${body}}` }
}

// Boundary analysis for expressions with no literal between them: the characters an expression may
// start with, and those that could extend it past a point where it might end ("%" stands for a triplet).
const U_SET = charTable(UNRESERVED_CHARS + "%")
const R_SET = charTable(UNRESERVED_CHARS + RESERVED_CHARS + "%")
const U_SLASH_SET = charTable(UNRESERVED_CHARS + "%/")
const FIRST: Record<Operator, Uint8Array> = { "": U_SET, "+": R_SET, "/": charTable("/"), "?": charTable("?"), "&": charTable("&") }
type Expr = Extract<Part, { _tag: "Expression" }>
const continuation = (e: Expr): Uint8Array =>
  e.operator === "+" ? R_SET : e.operator === "/" && e.variables[0]!.explode ? U_SLASH_SET : U_SET
const nullable = (e: Expr): boolean => e.operator === "?" || e.operator === "&" || e.variables[0]!.explode
const intersects = (a: Uint8Array, b: Uint8Array): boolean => a.some((x, i) => x === 1 && b[i] === 1)

/**
 * Parses and validates a template. Returns the template, or a {@link UriTemplateError} saying why it
 * was refused (the catalog calls this once, when it is built).
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * UriTemplate.parse("file:///{+path}")._tag // "UriTemplate"
 * UriTemplate.parse("file:///{path:3}")._tag // "UriTemplateError"
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const parse = (template: string): UriTemplate | UriTemplateError => {
  const fail = (reason: string) => new UriTemplateError({ template, reason })
  // length first: a code unit is at least one byte, so huge strings are never encoded
  if (template.length > MAX_TEMPLATE_BYTES || encoder.encode(template).length > MAX_TEMPLATE_BYTES) {
    return fail(`the template is longer than ${MAX_TEMPLATE_BYTES} bytes (UTF-8)`)
  }
  const parts: Array<Part> = []
  let literal = ""
  let i = 0
  while (i < template.length) {
    const c = template.charCodeAt(i)
    if (c === 0x7b) {
      const close = template.indexOf("}", i + 1)
      if (close === -1) return fail(`unclosed "{" at index ${i}`)
      const nested = template.indexOf("{", i + 1)
      if (nested !== -1 && nested < close) return fail(`"{" at index ${nested} is inside the expression opened at index ${i}`)
      const expression = parseExpression(template.slice(i + 1, close))
      if (typeof expression === "string") return fail(`${expression} at index ${i}`)
      if (literal !== "") parts.push({ _tag: "Literal", text: literal })
      literal = ""
      parts.push(expression)
      i = close + 1
    } else if (c === 0x7d) {
      return fail(`unmatched "}" at index ${i}`)
    } else if (c === PERCENT) {
      if (!isHexAt(template, i + 1) || !isHexAt(template, i + 2)) {
        return fail(`"%" at index ${i} does not start a percent-encoded triplet`)
      }
      literal += template.slice(i, i + 3)
      i += 3
    } else if (c < 128 && LITERAL[c] === 1) {
      literal += template[i]
      i++
    } else {
      return fail(`character ${describeChar(template, i)} at index ${i} is not allowed in a literal (ASCII URI characters except "'" only)`)
    }
  }
  if (literal !== "") parts.push({ _tag: "Literal", text: literal })

  const names: Array<string> = []
  for (const part of parts) {
    if (part._tag !== "Expression") continue
    for (const v of part.variables) {
      if (names.includes(v.name)) return fail(`variable "${v.name}" appears more than once`)
      names.push(v.name)
    }
  }
  if (names.length > MAX_VARIABLES) return fail(`the template has ${names.length} variables; the limit is ${MAX_VARIABLES}`)

  for (let j = 0; j < parts.length; j++) {
    const a = parts[j]!
    if (a._tag !== "Expression") continue
    const extend = continuation(a)
    for (let k = j + 1; k < parts.length; k++) {
      const b = parts[k]!
      if (b._tag !== "Expression") break
      if (intersects(extend, FIRST[b.operator])) {
        return fail(`${a.source} and ${b.source} have no literal between them, so their boundary is ambiguous`)
      }
      if (!nullable(b)) break
    }
  }

  const result: UriTemplate = Object.freeze({ _tag: "UriTemplate", source: template, parts, variables: names })
  internals.set(result, compile(parts, names))
  return result
}

/**
 * Whether a value is a template built by {@link parse} (rather than a {@link UriTemplateError}).
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * UriTemplate.isUriTemplate(UriTemplate.parse("a://{x}")) // true
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const isUriTemplate = (u: unknown): u is UriTemplate => typeof u === "object" && u !== null && internals.has(u as UriTemplate)

/**
 * The template's variable names in order (for `completion/complete` on template arguments).
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = UriTemplate.parse("db://{table}/rows{?limit,offset}") as UriTemplate.UriTemplate
 * UriTemplate.variables(t) // ["table", "limit", "offset"]
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const variables = (template: UriTemplate): ReadonlyArray<string> => template.variables

// ---- Matching

/**
 * Matches a URI against a template and returns the percent-decoded variables, or `undefined`.
 * See the module notes for what each expression accepts.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = UriTemplate.parse("repo://{owner}/files{/path*}{?ref}") as UriTemplate.UriTemplate
 * UriTemplate.match(t, "repo://me/files/src/a%20b.ts?ref=main")
 * // { owner: "me", path: ["src", "a b.ts"], ref: "main" }
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const match = (template: UriTemplate, uri: string): MatchResult | undefined => {
  return matchProgram(programOf(template), template.variables, uri)
}

/**
 * Whether `uri` is in the template's language, without decoding values. It is `true` also when a
 * value is not valid UTF-8 once decoded (so {@link match} returns `undefined`): the conservative
 * answer when the catalog refuses a template that overlaps an exact resource URI.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = UriTemplate.parse("file:///{path}") as UriTemplate.UriTemplate
 * UriTemplate.matchesExact(t, "file:///README.md") // true
 * UriTemplate.matchesExact(t, "file:///docs/README.md") // false
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const matchesExact = (template: UriTemplate, uri: string): boolean =>
  liveness(programOf(template), uri) !== undefined

// ---- Expansion

const encode = (value: string, reserved: boolean): string => {
  const bytes = encoder.encode(value)
  const allowed = reserved ? RESERVED_OR_UNRESERVED : UNRESERVED
  let out = ""
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b < 128 && allowed[b] === 1) out += String.fromCharCode(b)
    else if (reserved && b === PERCENT && HEX[bytes[i + 1] ?? 0] === 1 && HEX[bytes[i + 2] ?? 0] === 1) {
      out += String.fromCharCode(b, bytes[i + 1]!, bytes[i + 2]!) // RFC 6570 keeps triplets in {+var}
      i += 2
    } else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

/**
 * RFC 6570 expansion for the subset. Undefined values (missing, `undefined`, empty array) expand to
 * nothing; a list outside `{/var*}` joins its items with `,`.
 *
 * `match(t, expand(t, v))` gives back `v` for values in the matchable domain: non-empty strings for
 * `{var}`, `{+var}` and `{/var}` (with no "%" for `{+var}`, which keeps triplets as written),
 * non-empty items for `{/var*}`, any string for query variables. Where a value could also be read
 * differently (a `{+var}` followed by more template, or `{name}.json` with a "." in the name), the
 * longest-first split of {@link match} decides.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = UriTemplate.parse("repo://{owner}/files{/path*}{?ref}") as UriTemplate.UriTemplate
 * UriTemplate.expand(t, { owner: "me", path: ["src", "a b.ts"] }) // "repo://me/files/src/a%20b.ts"
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const expand = (template: UriTemplate, values: ExpandValues): string => {
  let out = ""
  for (const part of template.parts) {
    if (part._tag === "Literal") {
      out += part.text
      continue
    }
    const reserved = part.operator === "+"
    let first = true
    for (const { name, explode } of part.variables) {
      const raw = Object.hasOwn(values, name) ? values[name] : undefined
      if (raw === undefined || (typeof raw !== "string" && raw.length === 0)) continue
      const items = typeof raw === "string" ? [raw] : raw
      switch (part.operator) {
        case "":
        case "+":
          out += items.map((x) => encode(x, reserved)).join(",")
          break
        case "/":
          out += explode
            ? items.map((x) => `/${encode(x, false)}`).join("")
            : `/${items.map((x) => encode(x, false)).join(",")}`
          break
        case "?":
        case "&":
          out += `${part.operator === "?" && first ? "?" : "&"}${name}=${items.map((x) => encode(x, false)).join(",")}`
          break
      }
      first = false
    }
  }
  return out
}

/**
 * Whether some URI is in the language of both templates (so a catalog can refuse registering both).
 * Exact over the languages described in the module notes, so never `false` when a common URI exists;
 * it may say `true` when the only common URIs carry values that fail UTF-8 decoding (`%FF`), which
 * neither template would then actually match. Cost: at most |a| × |b| character states.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/UriTemplate"
 *
 * const t = (s: string) => UriTemplate.parse(s) as UriTemplate.UriTemplate
 * UriTemplate.overlaps(t("a://{x}/b"), t("a://c/{y}")) // true: "a://c/b"
 * UriTemplate.overlaps(t("a://x/{id}"), t("a://y/{id}")) // false
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const overlaps = (a: UriTemplate, b: UriTemplate): boolean => overlapsPrograms(programOf(a), programOf(b))
