/**
 * The matcher behind `catalog/UriTemplate`: character classes, a small NFA compiled from a parsed
 * template, the liveness pass that makes matching linear, and the product-automaton search that
 * decides whether two templates overlap. `catalog/UriTemplate` is the public surface.
 *
 * @internal
 */
/**
 * The operators of the subset: `""` simple, `"+"` reserved, `"/"` path segment, `"?"` form query,
 * `"&"` query continuation.
 *
 * @category models
 * @since 0.1.0
 */
export type Operator = "" | "+" | "/" | "?" | "&"

/**
 * One piece of a parsed template.
 *
 * @category models
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
 * What {@link match} returns: a string per matched variable, an array for `{/var*}`; optional query
 * variables that were absent have no key.
 *
 * @category models
 * @since 0.1.0
 */
export type MatchResult = { readonly [name: string]: string | ReadonlyArray<string> }


// ---- Character classes (ASCII lookup tables)

export const charTable = (chars: string): Uint8Array => {
  const t = new Uint8Array(128)
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1
  return t
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
export const UNRESERVED_CHARS = ALNUM + "-._~"
export const RESERVED_CHARS = ":/?#[]@!$&'()*+,;=" // gen-delims, then sub-delims
export const UNRESERVED = charTable(UNRESERVED_CHARS)
export const RESERVED_OR_UNRESERVED = charTable(UNRESERVED_CHARS + RESERVED_CHARS)
// RFC 6570 §2.1 literals, ASCII only: unreserved and reserved except "'" (and "%" only as a triplet).
export const LITERAL = charTable(UNRESERVED_CHARS + RESERVED_CHARS.replace("'", ""))
export const HEX = charTable("0123456789ABCDEFabcdef")
export const PERCENT = 0x25
export const encoder = new TextEncoder()
export const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/

export const isHexAt = (s: string, i: number): boolean => {
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
export interface Program {
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

export const compile = (parts: ReadonlyArray<Part>, names: ReadonlyArray<string>): Program => {
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
export const liveness = (prog: Program, s: string): ((p: number, i: number) => boolean) | undefined => {
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

export const charNfa = (prog: Program): CharNfa => {
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


/** Matches `uri` against a compiled program; the percent-decoded values, or `undefined`. */
export const matchProgram = (prog: Program, names: ReadonlyArray<string>, uri: string): MatchResult | undefined => {
    const live = liveness(prog, uri)
  if (live === undefined) return undefined
  // Walk forward through live states only (so it never fails), taking a SPLIT's preferred branch
  // whenever it is live. A CLASS step extends its variable's current value (opening the first one);
  // a LIT that precedes a value ("/", "&name=") opens the next one.
  const spans: Array<Array<number>> = names.map(() => [])
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
    names.forEach((name, slot) => {
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

/** Whether the languages of two programs intersect. */
export const overlapsPrograms = (a: Program, b: Program): boolean => {
  const A = charNfa(a)
  const B = charNfa(b)
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
