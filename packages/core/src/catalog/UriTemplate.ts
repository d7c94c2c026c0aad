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
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
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

/**
 * The largest template accepted, in UTF-8 bytes.
 *
 * @since 0.1.0
 */
export const MAX_TEMPLATE_BYTES = 1024

/**
 * The most variables one template may declare.
 *
 * @since 0.1.0
 */
export const MAX_VARIABLES = 32

/**
 * Why a template string was refused. `reason` names the offending piece and never needs the
 * template to be read back.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const r = UriTemplate.parse("file:///{#frag}")
 * if (r._tag === "UriTemplateError") console.error(r.reason)
 * ```
 *
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
 * The operators of the subset: `""` simple, `"+"` reserved, `"/"` path segment, `"?"` form query,
 * `"&"` query continuation.
 *
 * @since 0.1.0
 */
export type Operator = "" | "+" | "/" | "?" | "&"

/**
 * One piece of a parsed template.
 *
 * @since 0.1.0
 */
export type Part =
  | { readonly _tag: "Literal"; readonly text: string }
  | {
    readonly _tag: "Expression"
    readonly operator: Operator
    readonly variables: ReadonlyArray<{ readonly name: string; readonly explode: boolean }>
    /** The expression as written, braces included. */
    readonly source: string
  }

/**
 * A parsed, validated template. Build one with {@link parse}.
 *
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
 * What {@link match} returns: a string per matched variable, an array for `{/var*}`; optional query
 * variables that were absent have no key.
 *
 * @since 0.1.0
 */
export type MatchResult = { readonly [name: string]: string | ReadonlyArray<string> }

/**
 * Values for {@link expand}; `undefined` (or a missing key, or an empty array) leaves the variable
 * undefined in the RFC 6570 sense.
 *
 * @since 0.1.0
 */
export type ExpandValues = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

// ---- Character classes (ASCII lookup tables)

const charTable = (chars: string): Uint8Array => {
  const t = new Uint8Array(128)
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1
  return t
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const UNRESERVED_CHARS = ALNUM + "-._~"
const RESERVED_CHARS = ":/?#[]@!$&'()*+,;=" // gen-delims, then sub-delims
const UNRESERVED = charTable(UNRESERVED_CHARS)
const RESERVED_OR_UNRESERVED = charTable(UNRESERVED_CHARS + RESERVED_CHARS)
// RFC 6570 §2.1 literals, ASCII only: unreserved and reserved except "'" (and "%" only as a triplet).
const LITERAL = charTable(UNRESERVED_CHARS + RESERVED_CHARS.replace("'", ""))
const HEX = charTable("0123456789ABCDEFabcdef")
const PERCENT = 0x25
const encoder = new TextEncoder()
const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/

const isHexAt = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i)
  return c < 128 && HEX[c] === 1
}

/** Length of the value unit at `p` (1 for an allowed char, 3 for a pct triplet), 0 if none. */
const unitAt = (s: string, p: number, table: Uint8Array): number => {
  const c = s.charCodeAt(p)
  if (c === PERCENT) return isHexAt(s, p + 1) && isHexAt(s, p + 2) ? 3 : 0
  return c < 128 && table[c] === 1 ? 1 : 0
}

// ---- Program: a small NFA whose edges read a whole literal or one value unit

const OP_MATCH = 0
const OP_LIT = 1
const OP_CLASS = 2
const OP_SPLIT = 3

interface Instr {
  readonly op: number
  next: number
  /** SPLIT: the less preferred branch. */
  readonly alt: number
  readonly text: string
  /** LIT: index into `Program.literals`. */
  readonly lit: number
  readonly table: Uint8Array
  /** CLASS: the variable it reads; LIT: the variable whose (next) value starts after it, or -1. */
  readonly slot: number
}

/**
 * Compiled back to front, so every ε-edge (SPLIT) points to a lower index. The liveness loop reads
 * the grouped typed arrays: `[id, next]` pairs per class, per literal `[length, (id, next)…]`,
 * `[id, preferred, alternative]` per split in ascending order.
 */
interface Program {
  readonly instrs: ReadonlyArray<Instr>
  readonly start: number
  readonly explode: ReadonlyArray<boolean>
  readonly literals: ReadonlyArray<{ readonly text: string; readonly failure: Int32Array }>
  readonly prefix: string
  readonly suffix: string
  readonly classU: Int32Array
  readonly classR: Int32Array
  readonly lits: ReadonlyArray<Int32Array>
  readonly splits: Int32Array
  nfa?: CharNfa
}

const EMPTY = new Uint8Array(0)

const compile = (parts: ReadonlyArray<Part>, names: ReadonlyArray<string>): Program => {
  const instrs: Array<Instr> = []
  const literals: Array<{ text: string; failure: Int32Array }> = []
  const push = (op: number, next: number, extra: Partial<Instr> = {}): number =>
    instrs.push({ op, next, alt: -1, text: "", lit: -1, table: EMPTY, slot: -1, ...extra }) - 1
  const lit = (text: string, next: number, slot = -1): number => {
    let id = literals.findIndex((l) => l.text === text)
    if (id === -1) id = literals.push({ text, failure: kmpFailure(text) }) - 1
    return push(OP_LIT, next, { text, lit: id, slot })
  }
  // a run of units: entered at the CLASS for one or more, at the SPLIT for zero or more
  const run = (table: Uint8Array, slot: number, next: number, min: 0 | 1): number => {
    const split = push(OP_SPLIT, -1, { alt: next })
    const cls = push(OP_CLASS, split, { table, slot })
    instrs[split]!.next = cls
    return min === 1 ? cls : split
  }
  let k = push(OP_MATCH, -1)
  for (let j = parts.length - 1; j >= 0; j--) {
    const part = parts[j]!
    if (part._tag === "Literal") {
      k = lit(part.text, k)
      continue
    }
    const slot = names.indexOf(part.variables[0]!.name)
    if (part.operator === "" || part.operator === "+") {
      k = run(part.operator === "+" ? RESERVED_OR_UNRESERVED : UNRESERVED, slot, k, 1)
    } else if (part.operator === "/" && part.variables[0]!.explode) {
      const head = push(OP_SPLIT, -1, { alt: k })
      instrs[head]!.next = lit("/", run(UNRESERVED, slot, head, 1), slot)
      k = head
    } else if (part.operator === "/") {
      k = lit("/", run(UNRESERVED, slot, k, 1), slot)
    } else {
      // `after`: the rest once a pair was written (later pairs start with "&"); `fresh`: before any
      // was (a "{?…}" expression starts with "?"). Every pair may be skipped.
      let after = k
      let fresh = k
      for (let i = part.variables.length - 1; i >= 0; i--) {
        const name = part.variables[i]!.name
        const s = names.indexOf(name)
        const value = run(UNRESERVED, s, after, 0)
        const withAmp = push(OP_SPLIT, lit(`&${name}=`, value, s), { alt: after })
        fresh = part.operator === "?" ? push(OP_SPLIT, lit(`?${name}=`, value, s), { alt: fresh }) : withAmp
        after = withAmp
      }
      k = fresh
    }
  }
  const classU: Array<number> = []
  const classR: Array<number> = []
  const lits: Array<Array<number>> = literals.map((l) => [l.text.length])
  const splits: Array<number> = []
  instrs.forEach((ins, i) => {
    if (ins.op === OP_CLASS) (ins.table === UNRESERVED ? classU : classR).push(i, ins.next)
    else if (ins.op === OP_LIT) lits[ins.lit]!.push(i, ins.next)
    else if (ins.op === OP_SPLIT) splits.push(i, ins.next, ins.alt)
  })
  const first = parts[0]
  const last = parts[parts.length - 1]
  return {
    instrs,
    start: k,
    explode: names.map((n) => parts.some((p) => p._tag === "Expression" && p.variables.some((v) => v.name === n && v.explode))),
    literals,
    prefix: first?._tag === "Literal" ? first.text : "",
    suffix: last?._tag === "Literal" && parts.length > 1 ? last.text : "",
    classU: Int32Array.from(classU),
    classR: Int32Array.from(classR),
    lits: lits.map((group) => Int32Array.from(group)),
    splits: Int32Array.from(splits)
  }
}

const kmpFailure = (t: string): Int32Array => {
  const f = new Int32Array(t.length)
  for (let i = 1, k = 0; i < t.length; i++) {
    while (k > 0 && t.charCodeAt(i) !== t.charCodeAt(k)) k = f[k - 1]!
    if (t.charCodeAt(i) === t.charCodeAt(k)) k++
    f[i] = k
  }
  return f
}

/** Bitset of the positions where `text` occurs in `s` (Knuth–Morris–Pratt, linear). */
const occurrences = (s: string, text: string, failure: Int32Array): Uint32Array => {
  const bits = new Uint32Array((s.length >>> 5) + 1)
  for (let i = 0, k = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    while (k > 0 && c !== text.charCodeAt(k)) k = failure[k - 1]!
    if (c === text.charCodeAt(k)) k++
    if (k === text.length) {
      const at = i - k + 1
      bits[at >>> 5]! |= 1 << (at & 31)
      k = failure[k - 1]!
    }
  }
  return bits
}

/**
 * Backward liveness: bit (p, i) says "from instruction i at position p the rest of `s` matches".
 * O(|s| · |program|) time and bits, no backtracking; a 1 KiB template compiles to a few hundred
 * instructions at most, whatever the length of its literals.
 */
const liveness = (prog: Program, s: string): ((p: number, i: number) => boolean) | undefined => {
  const { prefix, suffix, classU, classR, lits, splits } = prog
  if (s.length < prefix.length + suffix.length || !s.startsWith(prefix) || !s.endsWith(suffix)) return undefined
  const n = s.length
  const W = (prog.instrs.length + 31) >>> 5
  const live = new Uint32Array((n + 1) * W)
  const occ = prog.literals.map((l) => occurrences(s, l.text, l.failure))
  const bit = (row: number, i: number): number => (live[row + (i >>> 5)]! >>> (i & 31)) & 1
  const set = (row: number, i: number): void => {
    live[row + (i >>> 5)]! |= 1 << (i & 31)
  }
  set(n * W, 0) // OP_MATCH is instruction 0
  for (let p = n; p >= 0; p--) {
    const row = p * W
    const u = p < n ? unitAt(s, p, UNRESERVED) : 0
    const r = u > 0 ? u : p < n ? unitAt(s, p, RESERVED_OR_UNRESERVED) : 0
    if (u > 0) for (let c = 0; c < classU.length; c += 2) if (bit((p + u) * W, classU[c + 1]!)) set(row, classU[c]!)
    if (r > 0) for (let c = 0; c < classR.length; c += 2) if (bit((p + r) * W, classR[c + 1]!)) set(row, classR[c]!)
    for (let l = 0; l < occ.length; l++) {
      if (((occ[l]![p >>> 5]! >>> (p & 31)) & 1) === 0) continue
      const group = lits[l]!
      const q = (p + group[0]!) * W // an occurrence at p ends within s
      for (let c = 1; c < group.length; c += 2) if (bit(q, group[c + 1]!)) set(row, group[c]!)
    }
    for (let c = 0; c < splits.length; c += 3) if (bit(row, splits[c + 1]!) | bit(row, splits[c + 2]!)) set(row, splits[c]!)
  }
  const get = (p: number, i: number): boolean => bit(p * W, i) === 1
  return get(0, prog.start) ? get : undefined
}

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
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * UriTemplate.parse("file:///{+path}")._tag // "UriTemplate"
 * UriTemplate.parse("file:///{path:3}")._tag // "UriTemplateError"
 * ```
 *
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
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * UriTemplate.isUriTemplate(UriTemplate.parse("a://{x}")) // true
 * ```
 *
 * @since 0.1.0
 */
export const isUriTemplate = (u: unknown): u is UriTemplate => typeof u === "object" && u !== null && internals.has(u as UriTemplate)

/**
 * The template's variable names in order (for `completion/complete` on template arguments).
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const t = UriTemplate.parse("db://{table}/rows{?limit,offset}") as UriTemplate.UriTemplate
 * UriTemplate.variables(t) // ["table", "limit", "offset"]
 * ```
 *
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
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const t = UriTemplate.parse("repo://{owner}/files{/path*}{?ref}") as UriTemplate.UriTemplate
 * UriTemplate.match(t, "repo://me/files/src/a%20b.ts?ref=main")
 * // { owner: "me", path: ["src", "a b.ts"], ref: "main" }
 * ```
 *
 * @since 0.1.0
 */
export const match = (template: UriTemplate, uri: string): MatchResult | undefined => {
  const prog = programOf(template)
  const live = liveness(prog, uri)
  if (live === undefined) return undefined
  // Walk forward through live states only (so it never fails), taking a SPLIT's preferred branch
  // whenever it is live. A CLASS step extends its variable's current value (opening the first one);
  // a LIT that precedes a value ("/", "&name=") opens the next one.
  const spans: Array<Array<number>> = template.variables.map(() => [])
  const { instrs } = prog
  for (let p = 0, i = prog.start; i !== 0;) {
    const ins = instrs[i]!
    if (ins.op === OP_LIT) {
      p += ins.text.length
      if (ins.slot !== -1) spans[ins.slot]!.push(p, p)
    } else if (ins.op === OP_CLASS) {
      const span = spans[ins.slot]!
      if (span.length === 0) span.push(p, p)
      p += unitAt(uri, p, ins.table)
      span[span.length - 1] = p
    }
    i = ins.op === OP_SPLIT && !live(p, ins.next) ? ins.alt : ins.next
  }
  const entries: Array<[string, string | ReadonlyArray<string>]> = []
  try {
    template.variables.forEach((name, slot) => {
      const s = spans[slot]!
      const values: Array<string> = []
      for (let j = 0; j + 1 < s.length; j += 2) values.push(decodeURIComponent(uri.slice(s[j], s[j + 1])))
      if (prog.explode[slot]) entries.push([name, values])
      else if (values.length === 1) entries.push([name, values[0]!])
    })
  } catch {
    return undefined // a value that is not UTF-8 once decoded
  }
  // fromEntries defines own properties, so a variable named "__proto__" stays a plain key
  return Object.fromEntries(entries)
}

/**
 * Whether `uri` is in the template's language, without decoding values. It is `true` also when a
 * value is not valid UTF-8 once decoded (so {@link match} returns `undefined`): the conservative
 * answer when the catalog refuses a template that overlaps an exact resource URI.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const t = UriTemplate.parse("file:///{path}") as UriTemplate.UriTemplate
 * UriTemplate.matchesExact(t, "file:///README.md") // true
 * UriTemplate.matchesExact(t, "file:///docs/README.md") // false
 * ```
 *
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
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const t = UriTemplate.parse("repo://{owner}/files{/path*}{?ref}") as UriTemplate.UriTemplate
 * UriTemplate.expand(t, { owner: "me", path: ["src", "a b.ts"] }) // "repo://me/files/src/a%20b.ts"
 * ```
 *
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

// ---- Overlap: intersection of two regular languages, by product-automaton search

/** The program unfolded to one state per character: a label (128-bit ASCII set) and ε-closed successors. */
interface CharNfa {
  readonly size: number
  readonly labels: Uint32Array
  readonly next: ReadonlyArray<Closure>
  readonly start: Closure
}

interface Closure {
  readonly states: ReadonlyArray<number>
  readonly accept: boolean
}

const charNfa = (prog: Program): CharNfa => {
  if (prog.nfa !== undefined) return prog.nfa
  const { instrs } = prog
  const base: Array<number> = []
  let size = 0
  for (const ins of instrs) {
    base.push(size)
    size += ins.op === OP_LIT ? ins.text.length : ins.op === OP_CLASS ? 4 : 0 // CLASS: raw, "%", HEX, HEX
  }
  const closures = new Map<number, Closure>()
  const closure = (i: number): Closure => {
    const ins = instrs[i]!
    let c = closures.get(i)
    if (c !== undefined) return c
    if (ins.op === OP_MATCH) c = { states: [], accept: true }
    else if (ins.op === OP_LIT) c = { states: [base[i]!], accept: false }
    else if (ins.op === OP_CLASS) c = { states: [base[i]!, base[i]! + 1], accept: false }
    else {
      const a = closure(ins.next)
      const b = closure(ins.alt)
      c = { states: [...new Set([...a.states, ...b.states])], accept: a.accept || b.accept }
    }
    closures.set(i, c)
    return c
  }
  const labels = new Uint32Array(size * 4)
  const label = (state: number, table: Uint8Array): void =>
    table.forEach((x, c) => {
      if (x === 1) labels[state * 4 + (c >>> 5)]! |= 1 << (c & 31)
    })
  const next: Array<Closure> = []
  instrs.forEach((ins, i) => {
    const b = base[i]!
    if (ins.op === OP_LIT) {
      for (let k = 0; k < ins.text.length; k++) {
        label(b + k, charTable(ins.text[k]!))
        next[b + k] = k + 1 < ins.text.length ? { states: [b + k + 1], accept: false } : closure(ins.next)
      }
    } else if (ins.op === OP_CLASS) {
      label(b, ins.table)
      label(b + 1, charTable("%"))
      label(b + 2, HEX)
      label(b + 3, HEX)
      next[b] = next[b + 3] = closure(ins.next)
      next[b + 1] = { states: [b + 2], accept: false }
      next[b + 2] = { states: [b + 3], accept: false }
    }
  })
  return (prog.nfa = { size, labels, next, start: closure(prog.start) })
}

/**
 * Whether some URI is in the language of both templates (so a catalog can refuse registering both).
 * Exact over the languages described in the module notes, so never `false` when a common URI exists;
 * it may say `true` when the only common URIs carry values that fail UTF-8 decoding (`%FF`), which
 * neither template would then actually match. Cost: at most |a| × |b| character states.
 *
 * @example
 * ```ts
 * import * as UriTemplate from "@snodo/core/catalog/UriTemplate"
 *
 * const t = (s: string) => UriTemplate.parse(s) as UriTemplate.UriTemplate
 * UriTemplate.overlaps(t("a://{x}/b"), t("a://c/{y}")) // true: "a://c/b"
 * UriTemplate.overlaps(t("a://x/{id}"), t("a://y/{id}")) // false
 * ```
 *
 * @since 0.1.0
 */
export const overlaps = (a: UriTemplate, b: UriTemplate): boolean => {
  const A = charNfa(programOf(a))
  const B = charNfa(programOf(b))
  if (A.start.accept && B.start.accept) return true
  const seen = new Uint32Array(((A.size * B.size) >>> 5) + 1)
  const queue: Array<number> = []
  const visit = (x: number, y: number): void => {
    const key = x * B.size + y
    if ((seen[key >>> 5]! >>> (key & 31)) & 1) return
    seen[key >>> 5]! |= 1 << (key & 31)
    const la = x * 4
    const lb = y * 4
    if (
      (A.labels[la]! & B.labels[lb]!) | (A.labels[la + 1]! & B.labels[lb + 1]!) |
      (A.labels[la + 2]! & B.labels[lb + 2]!) | (A.labels[la + 3]! & B.labels[lb + 3]!)
    ) queue.push(x, y)
  }
  for (const x of A.start.states) for (const y of B.start.states) visit(x, y)
  while (queue.length > 0) {
    const y = queue.pop()!
    const x = queue.pop()!
    // (x, y) can read a common character; afterwards both are in their ε-closed successors
    const nx = A.next[x]!
    const ny = B.next[y]!
    if (nx.accept && ny.accept) return true
    for (const x2 of nx.states) for (const y2 of ny.states) visit(x2, y2)
  }
  return false
}
