/**
 * A strict, allocation-light JSON parser for untrusted protocol frames.
 *
 * `JSON.parse` is lenient where a protocol boundary must not be: it keeps the last of duplicate
 * keys, silently rounds integers of any length and nests as deep as the stack allows. `parse`
 * accepts exactly RFC 8259 JSON and additionally refuses
 *
 * - duplicate member names in any object (`"duplicate-key"`),
 * - an integer part of more than 64 digits in any number (`"integer-too-long"`),
 * - nesting deeper than `maxDepth` arrays/objects, 128 by default (`"depth"`).
 *
 * It never throws: the outcome is plain data, a {@link Result}. The parser is iterative (an explicit
 * stack, no recursion), so even a huge `maxDepth` cannot overflow the call stack.
 *
 * Notes on the accepted language:
 *
 * - Whitespace is the JSON set only (space, tab, LF, CR); a byte-order mark is a syntax error.
 * - Unpaired surrogates are accepted, both as `\u` escapes (`"\ud800"`) and as raw UTF-16 code units
 *   in `text`: RFC 8259 §8.2 allows them syntactically and `JSON.parse` accepts them too.
 * - Objects are ordinary objects (prototype `Object.prototype`); a member named `"__proto__"`
 *   becomes an own data property, exactly as with `JSON.parse`, never the prototype.
 *
 * An object's member values are collected and the object made once, when it closes, by the
 * sequence of its member names (`internal/ObjectShapes.ts`): a sequence seen before is known to have
 * no duplicate, so its members are stored without an own-property check each.
 *
 * @example
 * ```ts
 * import * as StrictJson from "./StrictJson.ts" // internal: used by the envelope
 *
 * StrictJson.parse(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
 * // { _tag: "Ok", value: { jsonrpc: "2.0", id: 7, method: "ping" }, idLexeme: "7" }
 *
 * StrictJson.parse(`{"id":1,"id":2}`)
 * // { _tag: "Error", reason: "duplicate-key", offset: 7 }
 * ```
 *
 * @since 0.1.0
 */
import * as ObjectShapes from "./internal/ObjectShapes.ts"
import { ClientCapabilitiesKey, ClientInfoKey, LogLevelKey, ProtocolVersionKey, SubscriptionIdKey } from "../wire/Meta.ts"

/**
 * Why a text was refused.
 *
 * - `"syntax"`: not JSON (including empty input and unexpected end of input).
 * - `"duplicate-key"`: an object names the same member twice (compared after unescaping).
 * - `"trailing-data"`: non-whitespace after the top-level value.
 * - `"integer-too-long"`: a number whose integer part has more than {@link maxIntegerDigits} digits.
 * - `"depth"`: arrays/objects nested deeper than the configured maximum.
 * - `"invalid-string"`: an unescaped control character (U+0000–U+001F) or a bad escape in a string.
 *
 * @category models
 * @since 0.1.0
 */
export type StrictJsonErrorReason =
  | "syntax"
  | "duplicate-key"
  | "trailing-data"
  | "integer-too-long"
  | "depth"
  | "invalid-string"

/**
 * A successful parse.
 *
 * `idLexeme` is the exact source text of the top-level object's `"id"` member when that member is
 * a number (e.g. `"1"`, `"-0"`, `"1.0"`, `"1e3"`), so the caller can check the int64 range and
 * refuse fractions and exponents without the rounding of a JS number. It is `undefined` when the
 * value is not an object, has no `"id"`, or its `"id"` is not a number; nested `"id"`s are ignored.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ok {
  readonly _tag: "Ok"
  readonly value: unknown
  readonly idLexeme: string | undefined
}

/**
 * A refused text. `offset` is the UTF-16 index in the input where the problem was detected: the
 * unexpected character (or `text.length` at end of input), the opening quote of a duplicate key,
 * the first digit or `-` of a long number, the bracket that is one level too deep, the offending
 * character or backslash in a string, or the first character of trailing data.
 *
 * @category models
 * @since 0.1.0
 */
export interface Err {
  readonly _tag: "Error"
  readonly reason: StrictJsonErrorReason
  readonly offset: number
}

/**
 * The outcome of {@link parse}.
 *
 * @category models
 * @since 0.1.0
 */
export type Result = Ok | Err

/**
 * Options of {@link parse}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ParseOptions {
  /**
   * How many arrays/objects may enclose each other; `0` admits only a scalar. A negative or `NaN`
   * value means the default, {@link defaultMaxDepth}. `Infinity` is allowed.
   */
  readonly maxDepth?: number
}

/**
 * The default nesting limit of {@link parse}.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxDepth = 128

/**
 * The longest integer part (in digits) that a number may have.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxIntegerDigits = 64

// ---------------------------------------------------------------------------------------------
// internals
// ---------------------------------------------------------------------------------------------

const CH_TAB = 9
const CH_LF = 10
const CH_CR = 13
const CH_SPACE = 32
const CH_QUOTE = 34
const CH_PLUS = 43
const CH_COMMA = 44
const CH_MINUS = 45
const CH_DOT = 46
const CH_SLASH = 47
const CH_0 = 48
const CH_1 = 49
const CH_9 = 57
const CH_COLON = 58
const CH_UPPER_E = 69
const CH_LBRACKET = 91
const CH_BACKSLASH = 92
const CH_RBRACKET = 93
const CH_LOWER_E = 101
const CH_LOWER_F = 102
const CH_LOWER_N = 110
const CH_LOWER_T = 116
const CH_LBRACE = 123
const CH_RBRACE = 125

/** Largest digit count accumulated exactly in a double (< 2^53). */
const FAST_INT_DIGITS = 15

// Scratch state for the helpers below. `parse` is synchronous and calls no user code, so a single
// set of module-level slots is safe and avoids allocating a result object per token.
let failReason: StrictJsonErrorReason = "syntax"
let failOffset = 0
let stringValue = ""
let numberValue = 0

const fail = (reason: StrictJsonErrorReason, offset: number): Err => {
  // The containers opened so far are garbage now: the scratch stacks must not hold them.
  release()
  return { _tag: "Error", reason, offset }
}

// The open containers, outermost first: `names[d]`, the pending member name of an object or
// `undefined` for an array; `starts[d]`, where the container's values begin in the parse's
// `values`; and for an object either `shapes[d]`, its member names so far (its values are collected
// in `values` and the object made when it closes), or, when that shape is not remembered,
// `objects[d]`, the object being filled. Module-level scratch (`parse` is not re-entered, see
// above), a slot emptied when its container closes, so that a parse allocates no stacks of its own
// (what is stored in them is mostly old: the known names, the shapes).
const names: Array<string | undefined> = []
const starts: Array<number> = []
const shapes: Array<ObjectShapes.Shape | undefined> = []
const objects: Array<Record<string, unknown> | undefined> = []

/** The depth up to which the scratch stacks are kept from one parse to the next. */
const keptDepth = 256

const release = (): void => {
  names.length = 0
  starts.length = 0
  shapes.length = 0
  objects.length = 0
}

/**
 * Member names every MCP message uses, as constants: a name found here is not copied out of the
 * text, and is the string V8 already holds as a property name (no copy to internalize).
 */
const knownNames = [
  "jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "_meta", "name", "arguments",
  "cursor", "uri", "progressToken", "progress", "total", "requestState", "inputResponses", "task", "ttl", "text",
  "type", "content", "version", "title", "taskId", "notifications", "requestId", "reason", "level", "logger",
  ProtocolVersionKey, ClientCapabilitiesKey, ClientInfoKey, LogLevelKey, SubscriptionIdKey
]

/** The known names by length. */
const knownByLength: Array<ReadonlyArray<string> | undefined> = []
for (const known of knownNames) knownByLength[known.length] = [...(knownByLength[known.length] ?? []), known]

/** The member name between `start` and `end` (no escapes): a known one as it is, else a copy. */
const nameAt = (text: string, start: number, end: number): string => {
  const name = text.slice(start, end)
  const candidates = knownByLength[end - start]
  if (candidates !== undefined) {
    for (let k = 0; k < candidates.length; k++) {
      const known = candidates[k]!
      if (known === name) return known
    }
  }
  return name
}

/** The known names by their first character (all are ASCII), longest first. */
const knownByFirst: Array<ReadonlyArray<string> | undefined> = []
for (const known of knownNames.toSorted((a, b) => b.length - a.length)) {
  const first = known.charCodeAt(0)
  knownByFirst[first] = [...(knownByFirst[first] ?? []), known]
}

const skipWs = (text: string, i: number, len: number): number => {
  while (i < len) {
    const c = text.charCodeAt(i)
    if (c > CH_SPACE || (c !== CH_SPACE && c !== CH_LF && c !== CH_CR && c !== CH_TAB)) return i
    i++
  }
  return i
}

const hexValue = (c: number): number => {
  if (c >= CH_0 && c <= CH_9) return c - CH_0
  const l = c | 0x20 // fold A-F to a-f
  if (l >= 97 && l <= 102) return l - 87
  return -1
}

/** Slow path of {@link scanString}: the string has escapes. `from` is at the first backslash. */
const scanEscapedString = (text: string, start: number, from: number, len: number): number => {
  let out = text.slice(start, from)
  let chunk = from
  let i = from
  while (i < len) {
    const c = text.charCodeAt(i)
    if (c === CH_QUOTE) {
      stringValue = chunk === i ? out : out + text.slice(chunk, i)
      return i + 1
    }
    if (c === CH_BACKSLASH) {
      if (chunk !== i) out += text.slice(chunk, i)
      if (i + 1 >= len) {
        failReason = "syntax"
        failOffset = len
        return -1
      }
      const e = text.charCodeAt(i + 1)
      switch (e) {
        case CH_QUOTE:
          out += "\""
          break
        case CH_BACKSLASH:
          out += "\\"
          break
        case CH_SLASH:
          out += "/"
          break
        case 98: // b
          out += "\b"
          break
        case 102: // f
          out += "\f"
          break
        case 110: // n
          out += "\n"
          break
        case 114: // r
          out += "\r"
          break
        case 116: // t
          out += "\t"
          break
        case 117: { // u
          if (i + 6 > len) {
            failReason = "invalid-string"
            failOffset = i
            return -1
          }
          const h0 = hexValue(text.charCodeAt(i + 2))
          const h1 = hexValue(text.charCodeAt(i + 3))
          const h2 = hexValue(text.charCodeAt(i + 4))
          const h3 = hexValue(text.charCodeAt(i + 5))
          if ((h0 | h1 | h2 | h3) < 0) {
            failReason = "invalid-string"
            failOffset = i
            return -1
          }
          // Unpaired surrogates are deliberately allowed (RFC 8259 §8.2, same as JSON.parse).
          out += String.fromCharCode((h0 << 12) | (h1 << 8) | (h2 << 4) | h3)
          i += 6
          chunk = i
          continue
        }
        default:
          failReason = "invalid-string"
          failOffset = i
          return -1
      }
      i += 2
      chunk = i
      continue
    }
    if (c < CH_SPACE) {
      failReason = "invalid-string"
      failOffset = i
      return -1
    }
    i++
  }
  failReason = "syntax"
  failOffset = len
  return -1
}

/**
 * Scans a string whose opening quote is at `start - 1` (a member name when `name`). On success
 * stores the value in `stringValue` and returns the index after the closing quote; on failure
 * returns -1.
 */
const scanString = (text: string, start: number, len: number, name: boolean): number => {
  let i = start
  while (i < len) {
    const c = text.charCodeAt(i)
    if (c === CH_QUOTE) {
      stringValue = name ? nameAt(text, start, i) : text.slice(start, i)
      return i + 1
    }
    if (c === CH_BACKSLASH) return scanEscapedString(text, start, i, len)
    if (c < CH_SPACE) {
      failReason = "invalid-string"
      failOffset = i
      return -1
    }
    i++
  }
  failReason = "syntax"
  failOffset = len
  return -1
}

/**
 * Scans a member name whose opening quote is at `start - 1`, as {@link scanString} does. The name
 * `expected` (the one that followed last time, when it is plain) or a known name followed by a
 * quote is taken without scanning it character by character: such a name has no quote, backslash
 * or control character, so the token is exactly that name.
 */
const scanName = (text: string, start: number, len: number, expected: ObjectShapes.Shape | undefined): number => {
  if (expected !== undefined && expected.plain) {
    const name = expected.name
    const end = start + name.length
    if (end < len && text.charCodeAt(end) === CH_QUOTE && text.slice(start, end) === name) {
      stringValue = name
      return end + 1
    }
  }
  const first = text.charCodeAt(start)
  const candidates = first < 128 ? knownByFirst[first] : undefined
  if (candidates !== undefined) {
    for (let k = 0; k < candidates.length; k++) {
      const known = candidates[k]!
      const end = start + known.length
      if (end < len && text.charCodeAt(end) === CH_QUOTE && text.slice(start, end) === known) {
        stringValue = known
        return end + 1
      }
    }
  }
  return scanString(text, start, len, true)
}

/**
 * Scans a number starting at `start` (a `-` or a digit). On success stores the value in
 * `numberValue` and returns the index after the token; on failure returns -1.
 */
const scanNumber = (text: string, start: number, len: number): number => {
  let i = start
  let c = text.charCodeAt(i)
  const negative = c === CH_MINUS
  if (negative) {
    i++
    c = i < len ? text.charCodeAt(i) : -1
  }
  const intStart = i
  let acc = 0
  if (c === CH_0) {
    i++
    // A leading zero must stand alone ("01" is not JSON).
    if (i < len) {
      const d = text.charCodeAt(i)
      if (d >= CH_0 && d <= CH_9) {
        failReason = "syntax"
        failOffset = i
        return -1
      }
    }
  } else if (c >= CH_1 && c <= CH_9) {
    do {
      acc = acc * 10 + (c - CH_0)
      i++
      c = i < len ? text.charCodeAt(i) : -1
    } while (c >= CH_0 && c <= CH_9)
    if (i - intStart > maxIntegerDigits) {
      failReason = "integer-too-long"
      failOffset = start
      return -1
    }
  } else {
    failReason = "syntax"
    failOffset = i
    return -1
  }
  let simple = i - intStart <= FAST_INT_DIGITS
  c = i < len ? text.charCodeAt(i) : -1
  if (c === CH_DOT) {
    simple = false
    i++
    c = i < len ? text.charCodeAt(i) : -1
    if (!(c >= CH_0 && c <= CH_9)) {
      failReason = "syntax"
      failOffset = i
      return -1
    }
    do {
      i++
      c = i < len ? text.charCodeAt(i) : -1
    } while (c >= CH_0 && c <= CH_9)
  }
  if (c === CH_LOWER_E || c === CH_UPPER_E) {
    simple = false
    i++
    c = i < len ? text.charCodeAt(i) : -1
    if (c === CH_PLUS || c === CH_MINUS) {
      i++
      c = i < len ? text.charCodeAt(i) : -1
    }
    if (!(c >= CH_0 && c <= CH_9)) {
      failReason = "syntax"
      failOffset = i
      return -1
    }
    do {
      i++
      c = i < len ? text.charCodeAt(i) : -1
    } while (c >= CH_0 && c <= CH_9)
  }
  numberValue = simple ? (negative ? -acc : acc) : Number(text.slice(start, i))
  return i
}

/** Whether `text` has the ASCII `word` at `i` (`word` is a JSON literal). */
const hasLiteral = (text: string, i: number, word: string): boolean => {
  const n = word.length
  if (i + n > text.length) return false
  for (let k = 1; k < n; k++) {
    if (text.charCodeAt(i + k) !== word.charCodeAt(k)) return false
  }
  return true
}

/**
 * Parses one JSON text strictly. Never throws; see {@link StrictJsonErrorReason} for what is
 * refused and {@link Ok} for `idLexeme`.
 *
 * @example
 * ```ts
 * import * as StrictJson from "./StrictJson.ts" // internal: used by the envelope
 *
 * const result = StrictJson.parse(`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`)
 * if (result._tag === "Ok") {
 *   result.idLexeme // "1e3": not an integer lexeme, the caller refuses it
 * } else {
 *   result.reason // e.g. "duplicate-key"
 *   result.offset // where in the text
 * }
 *
 * StrictJson.parse("[[1]]", { maxDepth: 1 }) // { _tag: "Error", reason: "depth", offset: 1 }
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const parse = (text: string, options?: ParseOptions): Result => {
  const requested = options?.maxDepth
  const maxDepth = requested !== undefined && requested >= 0 ? requested : defaultMaxDepth
  const len = text.length
  let idLexeme: string | undefined = undefined
  let numberStart = 0
  let numberEnd = 0
  let value: unknown
  // `depth` containers are open (`names[0 .. depth - 1]`…) and `values[0 .. top - 1]` are the
  // values they have collected so far (an array of this parse: storing in it is a store in the
  // young generation).
  const values: Array<unknown> = []
  let depth = 0
  let top = 0
  let i = skipWs(text, 0, len)

  for (;;) {
    // Parse one value starting at `i` (already past whitespace).
    if (i >= len) return fail("syntax", i)
    const c = text.charCodeAt(i)
    if (c === CH_QUOTE) {
      // A string value: `scanString`, written out here for the common case of no escape.
      const start = i + 1
      let end = start
      for (;;) {
        if (end >= len) return fail("syntax", len)
        const e = text.charCodeAt(end)
        if (e === CH_QUOTE) break
        if (e === CH_BACKSLASH || e < CH_SPACE) {
          end = -1
          break
        }
        end++
      }
      if (end >= 0) {
        value = text.slice(start, end)
        i = end + 1
      } else {
        i = scanString(text, start, len, false)
        if (i < 0) return fail(failReason, failOffset)
        value = stringValue
      }
    } else if (c === CH_LBRACE) {
      if (depth >= maxDepth) return fail("depth", i)
      i = skipWs(text, i + 1, len)
      if (i < len && text.charCodeAt(i) === CH_RBRACE) {
        i++
        value = {}
      } else {
        if (i >= len || text.charCodeAt(i) !== CH_QUOTE) return fail("syntax", i)
        // The object's first member is likely the one the same place had last time.
        const outer = depth > 0 ? shapes[depth - 1] : undefined
        const expected = outer !== undefined ? outer.inner : ObjectShapes.empty().last
        i = scanName(text, i + 1, len, expected)
        if (i < 0) return fail(failReason, failOffset)
        const name = stringValue
        i = skipWs(text, i, len)
        if (i >= len || text.charCodeAt(i) !== CH_COLON) return fail("syntax", i)
        i = skipWs(text, i + 1, len)
        const shape = ObjectShapes.first(name, expected)
        if (outer !== undefined && outer.inner !== shape) outer.inner = shape
        shapes[depth] = shape
        objects[depth] = shape === undefined ? {} : undefined
        names[depth] = name
        starts[depth] = top
        depth++
        continue
      }
    } else if (c === CH_LBRACKET) {
      if (depth >= maxDepth) return fail("depth", i)
      i = skipWs(text, i + 1, len)
      if (i < len && text.charCodeAt(i) === CH_RBRACKET) {
        i++
        value = []
      } else {
        shapes[depth] = undefined
        objects[depth] = undefined
        names[depth] = undefined
        starts[depth] = top
        depth++
        continue
      }
    } else if (c === CH_MINUS || (c >= CH_0 && c <= CH_9)) {
      numberStart = i
      i = scanNumber(text, i, len)
      if (i < 0) return fail(failReason, failOffset)
      numberEnd = i
      value = numberValue
    } else if (c === CH_LOWER_T) {
      if (!hasLiteral(text, i, "true")) return fail("syntax", i)
      i += 4
      value = true
    } else if (c === CH_LOWER_F) {
      if (!hasLiteral(text, i, "false")) return fail("syntax", i)
      i += 5
      value = false
    } else if (c === CH_LOWER_N) {
      if (!hasLiteral(text, i, "null")) return fail("syntax", i)
      i += 4
      value = null
    } else {
      return fail("syntax", i)
    }

    // A value is complete: hand it to the enclosing containers, closing as many as end here.
    for (;;) {
      i = skipWs(text, i, len)
      if (depth === 0) {
        if (i !== len) return fail("trailing-data", i)
        if (names.length > keptDepth) release()
        return { _tag: "Ok", value, idLexeme }
      }
      if (i >= len) return fail("syntax", i)
      const d = text.charCodeAt(i)
      const at = depth - 1
      const name = names[at]
      const start = starts[at]!
      if (name === undefined) {
        values[top++] = value
        if (d === CH_COMMA) break
        if (d !== CH_RBRACKET) return fail("syntax", i)
        value = values.slice(start, top)
      } else {
        if (at === 0 && name === "id" && typeof value === "number") {
          idLexeme = text.slice(numberStart, numberEnd)
        }
        const shape = shapes[at]
        const target = objects[at]
        if (shape !== undefined) values[top++] = value
        else ObjectShapes.setMember(target!, name, value)
        if (d === CH_COMMA) {
          i = skipWs(text, i + 1, len)
          if (i >= len || text.charCodeAt(i) !== CH_QUOTE) return fail("syntax", i)
          const nameOffset = i
          i = scanName(text, i + 1, len, shape?.last)
          if (i < 0) return fail(failReason, failOffset)
          const next = stringValue
          if (shape !== undefined) {
            const nextShape = ObjectShapes.next(shape, next)
            if (nextShape === ObjectShapes.duplicate) return fail("duplicate-key", nameOffset)
            if (nextShape === undefined) {
              // Not remembered: the object is made now and filled member by member from here.
              objects[at] = ObjectShapes.build(shape, values, start)
              top = start
            }
            shapes[at] = nextShape
          } else if (Object.hasOwn(target!, next)) {
            return fail("duplicate-key", nameOffset)
          }
          i = skipWs(text, i, len)
          if (i >= len || text.charCodeAt(i) !== CH_COLON) return fail("syntax", i)
          names[at] = next
          break
        }
        if (d !== CH_RBRACE) return fail("syntax", i)
        if (shape !== undefined) {
          value = ObjectShapes.build(shape, values, start)
        } else {
          value = target
          objects[at] = undefined
        }
        names[at] = undefined
      }
      i++
      top = start
      depth = at
    }
    i = skipWs(text, i + 1, len)
  }
}
