import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Tracer } from "effect"
import * as fc from "fast-check"
import * as TraceContext from "../src/observability/internal/TraceContext.ts"

const traceId = "0af7651916cd43dd8448eb211c80319c"
const spanId = "b7ad6b7169203331"
const sampled = `00-${traceId}-${spanId}-01`
const notSampled = `00-${traceId}-${spanId}-00`

/** The trace state of a valid traceparent with `tracestate`. */
const state = (tracestate: unknown): string | undefined => {
  const parsed = TraceContext.parse(sampled, tracestate)
  if (parsed === undefined) throw new Error("the traceparent was refused")
  return parsed.traceState
}

describe("TraceContext.parse", () => {
  it("parses a sampled traceparent", () => {
    expect(TraceContext.parse(sampled)).toEqual({ traceId, spanId, sampled: true, traceState: undefined })
  })

  it("parses a traceparent that is not sampled", () => {
    expect(TraceContext.parse(notSampled)).toEqual({ traceId, spanId, sampled: false, traceState: undefined })
  })

  it("reads only bit 0 of the flags", () => {
    expect(TraceContext.parse(`00-${traceId}-${spanId}-03`)?.sampled).toBe(true)
    expect(TraceContext.parse(`00-${traceId}-${spanId}-fe`)?.sampled).toBe(false)
    expect(TraceContext.parse(`00-${traceId}-${spanId}-ff`)?.sampled).toBe(true)
  })

  it("refuses version ff", () => {
    expect(TraceContext.parse(`ff-${traceId}-${spanId}-01`)).toBeUndefined()
  })

  it("refuses an all-zero trace id", () => {
    expect(TraceContext.parse(`00-${"0".repeat(32)}-${spanId}-01`)).toBeUndefined()
  })

  it("refuses an all-zero parent id", () => {
    expect(TraceContext.parse(`00-${traceId}-${"0".repeat(16)}-01`)).toBeUndefined()
  })

  it("refuses uppercase hex in any field", () => {
    expect(TraceContext.parse(`00-${traceId.toUpperCase()}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId.toUpperCase()}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId}-0A`)).toBeUndefined()
    expect(TraceContext.parse(`0A-${traceId}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(sampled.toUpperCase())).toBeUndefined()
  })

  it("refuses non-hex characters and wrong separators", () => {
    expect(TraceContext.parse(`00-${traceId.slice(0, 31)}g-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`0x-${traceId}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00_${traceId}_${spanId}_01`)).toBeUndefined()
  })

  it("refuses wrong field lengths", () => {
    expect(TraceContext.parse(`00-${traceId.slice(1)}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}a-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId.slice(1)}-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId}a-01`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId}-1`)).toBeUndefined()
    expect(TraceContext.parse(`00-${traceId}-${spanId}-011`)).toBeUndefined()
    expect(TraceContext.parse(`0-${traceId}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse(`000-${traceId}-${spanId}-01`)).toBeUndefined()
    expect(TraceContext.parse("")).toBeUndefined()
    expect(TraceContext.parse(sampled.slice(0, 54))).toBeUndefined()
  })

  it("refuses version 00 with an extra field", () => {
    expect(TraceContext.parse(`${sampled}-what-the-future-will-be-like`)).toBeUndefined()
    expect(TraceContext.parse(`${sampled}-`)).toBeUndefined()
  })

  it("accepts a future version, ignoring its extra fields", () => {
    const expected = { traceId, spanId, sampled: true, traceState: undefined }
    expect(TraceContext.parse(`cc-${traceId}-${spanId}-01`)).toEqual(expected)
    expect(TraceContext.parse(`cc-${traceId}-${spanId}-01-what-the-future-will-be-like`)).toEqual(expected)
    expect(TraceContext.parse(`01-${traceId}-${spanId}-01-`)).toEqual(expected)
  })

  it("refuses a future version whose 56th character is not a dash", () => {
    expect(TraceContext.parse(`cc-${traceId}-${spanId}-01x`)).toBeUndefined()
    expect(TraceContext.parse(`cc-${traceId}-${spanId}-010`)).toBeUndefined()
  })

  it("still applies the version 00 rules to the first 55 characters of a future version", () => {
    expect(TraceContext.parse(`cc-${"0".repeat(32)}-${spanId}-01-x`)).toBeUndefined()
    expect(TraceContext.parse(`cc-${traceId}-${spanId.toUpperCase()}-01-x`)).toBeUndefined()
  })

  it("refuses a traceparent of more than 512 characters", () => {
    const future = `cc-${traceId}-${spanId}-01-`
    const atLimit = future + "x".repeat(512 - future.length)
    expect(atLimit).toHaveLength(512)
    expect(TraceContext.parse(atLimit)?.traceId).toBe(traceId)
    expect(TraceContext.parse(`${atLimit}x`)).toBeUndefined()
    expect(TraceContext.parse(`${sampled}${" ".repeat(512 - sampled.length + 1)}`)).toBeUndefined()
  })

  it("trims spaces and tabs around the traceparent, and nothing else", () => {
    expect(TraceContext.parse(`  \t${sampled}\t `)?.spanId).toBe(spanId)
    expect(TraceContext.parse(`\n${sampled}`)).toBeUndefined()
    expect(TraceContext.parse(`${sampled}\r\n`)).toBeUndefined()
    expect(TraceContext.parse(`${sampled}\u00a0`)).toBeUndefined()
    expect(TraceContext.parse(`00 -${traceId}-${spanId}-01`)).toBeUndefined()
  })

  it("refuses anything that is not a string", () => {
    for (const value of [undefined, null, 0, true, {}, [sampled], new String(sampled)]) {
      expect(TraceContext.parse(value)).toBeUndefined()
    }
  })
})

describe("TraceContext tracestate", () => {
  it("keeps a valid tracestate", () => {
    expect(state("congo=t61rcWkgMzE")).toBe("congo=t61rcWkgMzE")
    expect(state("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")).toBe("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
  })

  it("trims whitespace around members and re-joins them with commas", () => {
    expect(state(" rojo=1 ,\tcongo=2\t")).toBe("rojo=1,congo=2")
  })

  it("skips empty members", () => {
    expect(state("rojo=1,,congo=2")).toBe("rojo=1,congo=2")
    expect(state(",rojo=1, \t ,congo=2,")).toBe("rojo=1,congo=2")
    expect(state("")).toBeUndefined()
    expect(state(" , ,")).toBeUndefined()
  })

  it("is undefined when absent or not a string", () => {
    expect(state(undefined)).toBeUndefined()
    expect(state(null)).toBeUndefined()
    expect(state(["rojo=1"])).toBeUndefined()
    expect(state(42)).toBeUndefined()
  })

  it("accepts 32 members and drops 33", () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`)
    expect(state(members(32).join(","))).toBe(members(32).join(","))
    expect(state(members(33).join(","))).toBeUndefined()
    // empty members do not count
    expect(state(`${members(32).join(",,")},,`)).toBe(members(32).join(","))
  })

  it("drops a tracestate of more than 512 characters", () => {
    const atLimit = `k=${"v".repeat(254)},l=${"v".repeat(253)}`
    expect(atLimit).toHaveLength(512)
    expect(state(atLimit)).toBe(atLimit)
    expect(state(`${atLimit},`)).toBeUndefined()
  })

  it("drops a tracestate with duplicate keys", () => {
    expect(state("rojo=1,congo=2,rojo=3")).toBeUndefined()
    expect(state("a@b=1,a@b=2")).toBeUndefined()
    expect(state("a@b=1,a=2,b=3")).toBe("a@b=1,a=2,b=3")
  })

  it("accepts simple keys at their limits", () => {
    expect(state(`a${"_-*/0z".repeat(42)}abc=1`)).toBe(`a${"_-*/0z".repeat(42)}abc=1`)
    expect(state(`${"a".repeat(256)}=1`)).toBe(`${"a".repeat(256)}=1`)
    expect(state(`${"a".repeat(257)}=1`)).toBeUndefined()
    expect(state("0abc=1")).toBe("0abc=1")
  })

  it("refuses bad simple keys", () => {
    for (const key of ["", "Rojo", "_rojo", "-rojo", "*rojo", "/rojo", "ro jo", "ro.jo", "rojo!"]) {
      expect(state(`${key}=1`)).toBeUndefined()
    }
  })

  it("accepts multi-tenant keys", () => {
    expect(state("fw529a3039@dt=1")).toBe("fw529a3039@dt=1")
    expect(state("0tenant@sys_-*/9=1")).toBe("0tenant@sys_-*/9=1")
    expect(state(`${"t".repeat(241)}@${"s".repeat(14)}=1`)).toBe(`${"t".repeat(241)}@${"s".repeat(14)}=1`)
  })

  it("refuses bad multi-tenant keys", () => {
    expect(state(`${"t".repeat(242)}@s=1`)).toBeUndefined()
    expect(state(`t@${"s".repeat(15)}=1`)).toBeUndefined()
    expect(state("t@0sys=1")).toBeUndefined()
    expect(state("t@_sys=1")).toBeUndefined()
    expect(state("@sys=1")).toBeUndefined()
    expect(state("t@=1")).toBeUndefined()
    expect(state("t@s@u=1")).toBeUndefined()
    expect(state("T@s=1")).toBeUndefined()
    expect(state("t@S=1")).toBeUndefined()
  })

  it("accepts values of printable ASCII other than , and =", () => {
    const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i))
      .filter((char) => char !== "," && char !== "=")
      .join("")
    expect(state(`k=${printable}`)).toBe(`k=${printable}`)
    expect(state("k= leading")).toBe("k= leading")
    expect(state("k=in side")).toBe("k=in side")
    expect(state(`k=${"v".repeat(256)}`)).toBe(`k=${"v".repeat(256)}`)
  })

  it("drops bad values", () => {
    expect(state("k=")).toBeUndefined()
    expect(state(`k=${"v".repeat(257)}`)).toBeUndefined()
    expect(state("k=a=b")).toBeUndefined()
    expect(state("k=a\tb")).toBeUndefined()
    expect(state("k=a\u007fb")).toBeUndefined()
    expect(state("k=caf\u00e9")).toBeUndefined()
    expect(state("k=a\nb")).toBeUndefined()
    expect(state("k")).toBeUndefined()
    expect(state("k =1")).toBeUndefined()
    // a member's trailing space is whitespace around it, not part of the value
    expect(state("k=v ")).toBe("k=v")
    expect(state("k= ")).toBeUndefined()
  })

  it("drops the whole tracestate for one bad member, keeping the traceparent", () => {
    const parsed = TraceContext.parse(sampled, "rojo=1,Bad=2,congo=3")
    expect(parsed).toEqual({ traceId, spanId, sampled: true, traceState: undefined })
  })

  it("is not read when the traceparent is invalid", () => {
    expect(TraceContext.parse(`ff-${traceId}-${spanId}-01`, "rojo=1")).toBeUndefined()
  })
})

describe("TraceContext.fromMeta", () => {
  it("is undefined for anything that is not an object", () => {
    for (const meta of [undefined, null, sampled, 1, true, [sampled], [{ traceparent: sampled }]]) {
      expect(TraceContext.fromMeta(meta)).toBeUndefined()
    }
  })

  it("is undefined for an object without a valid traceparent", () => {
    expect(TraceContext.fromMeta({})).toBeUndefined()
    expect(TraceContext.fromMeta({ tracestate: "rojo=1" })).toBeUndefined()
    expect(TraceContext.fromMeta({ traceparent: "nope" })).toBeUndefined()
    expect(TraceContext.fromMeta({ traceparent: [sampled] })).toBeUndefined()
  })

  it("reads traceparent and tracestate", () => {
    expect(TraceContext.fromMeta({ traceparent: sampled, tracestate: "rojo=1", progressToken: 3 })).toEqual({
      traceId,
      spanId,
      sampled: true,
      traceState: "rojo=1"
    })
    expect(TraceContext.fromMeta({ traceparent: notSampled })).toEqual({ traceId, spanId, sampled: false, traceState: undefined })
  })

  it("reads own properties only", () => {
    expect(TraceContext.fromMeta(Object.create({ traceparent: sampled }))).toBeUndefined()
    const bare: Record<string, unknown> = Object.create(null)
    bare["traceparent"] = sampled
    expect(TraceContext.fromMeta(bare)?.traceId).toBe(traceId)
  })
})

describe("TraceContext.toSpan", () => {
  it("is an external span with the caller's ids and sampling", () => {
    const span = TraceContext.toSpan({ traceId, spanId, sampled: false, traceState: "rojo=1" })
    expect(span._tag).toBe("ExternalSpan")
    expect(span.traceId).toBe(traceId)
    expect(span.spanId).toBe(spanId)
    expect(span.sampled).toBe(false)
    expect(Context.isContext(span.annotations)).toBe(true)
    expect(TraceContext.toSpan({ traceId, spanId, sampled: true, traceState: undefined }).sampled).toBe(true)
  })

  it.effect("parents a span made under it", () =>
    Effect.gen(function*() {
      const parent = TraceContext.toSpan({ traceId, spanId, sampled: true, traceState: undefined })
      const child = yield* Effect.currentSpan.pipe(Effect.withSpan("child"), Effect.provideService(Tracer.ParentSpan, parent))
      expect(child.traceId).toBe(traceId)
      expect(child.parent._tag === "Some" ? child.parent.value.spanId : undefined).toBe(spanId)
    }))
})

describe("TraceContext properties", () => {
  const hex = (length: number, chars = "0123456789abcdef") =>
    fc.string({ unit: fc.constantFrom(...chars), minLength: length, maxLength: length })
  /** Mostly lowercase hex, sometimes uppercase or other characters, with zeros favoured. */
  const field = (length: number) =>
    fc.oneof(
      { weight: 6, arbitrary: hex(length) },
      { weight: 1, arbitrary: hex(length, "0") },
      { weight: 1, arbitrary: hex(length, "0123456789abcdefABCDEFxyz-") },
      { weight: 1, arbitrary: fc.string({ minLength: length - 1, maxLength: length + 1 }) }
    )
  const traceparents = fc.record({
    version: fc.oneof({ weight: 3, arbitrary: fc.constant("00") }, { weight: 1, arbitrary: field(2) }),
    traceId: field(32),
    spanId: field(16),
    flags: field(2),
    before: fc.constantFrom("", " ", "\t "),
    suffix: fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((rest) => `-${rest}`) })
  })

  it("parses the input's own fields, and a re-serialized context to the same ids", () => {
    fc.assert(
      fc.property(traceparents, (input) => {
        const value = `${input.before}${input.version}-${input.traceId}-${input.spanId}-${input.flags}${input.suffix}`
        const parsed = TraceContext.parse(value)
        if (parsed === undefined) return
        expect(parsed.traceId).toBe(input.traceId)
        expect(parsed.spanId).toBe(input.spanId)
        expect(parsed.sampled).toBe((Number.parseInt(input.flags, 16) & 1) === 1)
        const again = TraceContext.parse(`00-${parsed.traceId}-${parsed.spanId}-${parsed.sampled ? "01" : "00"}`)
        expect(again).toEqual(parsed)
      }),
      { numRuns: 2000 }
    )
  })

  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (traceparent, tracestate) => {
        TraceContext.parse(traceparent, tracestate)
        TraceContext.fromMeta({ traceparent, tracestate })
        TraceContext.fromMeta(traceparent)
      }),
      { numRuns: 500 }
    )
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 600 }), (value) => {
        expect(TraceContext.parse(sampled, value)).toBeDefined()
      }),
      { numRuns: 500 }
    )
  })
})
