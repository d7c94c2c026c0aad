import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as UriTemplate from "../src/catalog/internal/UriTemplate.ts"

const t = (source: string): UriTemplate.UriTemplate => {
  const parsed = UriTemplate.parse(source)
  if (parsed._tag === "UriTemplateError") throw new Error(`${source}: ${parsed.reason}`)
  return parsed
}

const segments = (n: number): string => Array.from({ length: n }, (_, i) => `{/v${i}}`).join("")

const refusal = (source: string): string => {
  const parsed = UriTemplate.parse(source)
  if (parsed._tag !== "UriTemplateError") throw new Error(`${source} was accepted`)
  expect(parsed).toBeInstanceOf(UriTemplate.UriTemplateError)
  expect(parsed.template).toBe(source)
  return parsed.reason
}

describe("UriTemplate.parse", () => {
  it("keeps the source and lists variables in order", () => {
    const tpl = t("db://{table}/rows{/id}{/rest*}{?limit,offset}{&sort}")
    expect(tpl.source).toBe("db://{table}/rows{/id}{/rest*}{?limit,offset}{&sort}")
    expect(UriTemplate.variables(tpl)).toEqual(["table", "id", "rest", "limit", "offset", "sort"])
    expect(UriTemplate.isUriTemplate(tpl)).toBe(true)
    expect(UriTemplate.isUriTemplate({ ...tpl })).toBe(false)
  })

  it("accepts dotted names, literal triplets and templates without variables", () => {
    expect(UriTemplate.variables(t("a://{user.name}"))).toEqual(["user.name"])
    expect(UriTemplate.match(t("a://x%20y/{id}"), "a://x%20y/1")).toEqual({ id: "1" })
    expect(UriTemplate.match(t("a://fixed"), "a://fixed")).toEqual({})
    expect(UriTemplate.match(t("a://fixed"), "a://fixed2")).toBeUndefined()
  })

  it("refuses each unsupported construct with a reason", () => {
    expect(refusal("a://{#frag}")).toMatch(/operator "#" .* not supported/)
    expect(refusal("a://{.ext}")).toMatch(/operator "\." .* not supported/)
    expect(refusal("a://{;p}")).toMatch(/operator ";" .* not supported/)
    expect(refusal("a://{=x}")).toMatch(/operator "=" .* not supported/)
    expect(refusal("a://{var:3}")).toMatch(/prefix modifier ":3"/)
    expect(refusal("a://{var*}")).toMatch(/explode modifier .* only supported in path expressions/)
    expect(refusal("a://x{?q*}")).toMatch(/explode modifier/)
    expect(refusal("a://{a,b}")).toMatch(/lists several variables/)
    expect(refusal("a://{/a,b}")).toMatch(/lists several variables/)
    expect(refusal("a://{a-b}")).toMatch(/invalid variable name "a-b"/)
    expect(refusal("a://{a..b}")).toMatch(/invalid variable name/)
    expect(refusal("a://{ a}")).toMatch(/invalid variable name/)
    expect(refusal("a://{%41}")).toMatch(/invalid variable name/)
    expect(refusal("a://x{?a,}")).toMatch(/invalid variable name ""/)
    expect(refusal("a://{}")).toMatch(/empty expression/)
    expect(refusal("a://{id")).toMatch(/unclosed "\{" at index 4/)
    expect(refusal("a://id}")).toMatch(/unmatched "\}" at index 6/)
    expect(refusal("a://{a{b}}")).toMatch(/inside the expression/)
    expect(refusal("a://{a}/{a}")).toMatch(/variable "a" appears more than once/)
    expect(refusal("a://x{?a}{&a}")).toMatch(/appears more than once/)
    expect(refusal("a://x y/{id}")).toMatch(/character U\+0020 at index 5 is not allowed/)
    expect(refusal("a://é/{id}")).toMatch(/U\+00E9/)
    expect(refusal("a://'/{id}")).toMatch(/character "'" /)
    expect(refusal("a://%zz/{id}")).toMatch(/"%" at index 4 does not start a percent-encoded triplet/)
  })

  it("refuses adjacent expressions whose boundary is ambiguous", () => {
    expect(refusal("a://{a}{b}")).toMatch(/\{a\} and \{b\} have no literal between them/)
    expect(refusal("a://{a}{+b}")).toMatch(/ambiguous/)
    expect(refusal("a://{+path}{?q}")).toMatch(/ambiguous/)
    expect(refusal("a://{+path}{/seg}")).toMatch(/ambiguous/)
    expect(refusal("a://x{/a*}{/b}")).toMatch(/ambiguous/)
    expect(refusal("a://x{?q}{b}")).toMatch(/ambiguous/)
    // an optional expression in between does not separate them
    expect(refusal("a://{a}{?q}{b}")).toMatch(/\{a\} and \{b\}/)
    // these boundaries are unambiguous: the next expression starts with a character the previous cannot hold
    for (const ok of ["a://{a}{/b}", "a://{a}{?q}", "a://x{/a}{/b}", "a://x{?a}{&b}", "a://x{/a*}{?q}", "a://{+a}/{b}"]) {
      expect(UriTemplate.isUriTemplate(UriTemplate.parse(ok))).toBe(true)
    }
  })

  it("enforces the size and variable limits", () => {
    const at = "a://" + "x".repeat(UriTemplate.MAX_TEMPLATE_BYTES - 4)
    expect(UriTemplate.isUriTemplate(UriTemplate.parse(at))).toBe(true)
    expect(refusal(at + "y")).toMatch(/longer than 1024 bytes/)
    // bytes, not UTF-16 units: "é" is two bytes once encoded
    expect(refusal("a://{x}/" + "%C3%A9".repeat(100) + "é".repeat(300))).toMatch(/longer than 1024 bytes/)
    expect(UriTemplate.variables(t(`a://x${segments(32)}`))).toHaveLength(32)
    expect(refusal(`a://x${segments(33)}`)).toMatch(/33 variables; the limit is 32/)
  })

  it("is a Schema.TaggedError with a readable message", () => {
    const error = UriTemplate.parse("a://{#x}")
    expect(error._tag).toBe("UriTemplateError")
    expect((error as UriTemplate.UriTemplateError).message).toMatch(/^Invalid URI template: operator "#"/)
  })
})

describe("UriTemplate.match", () => {
  it("matches the MCP conformance template", () => {
    const tpl = t("test://template/{id}/data")
    expect(UriTemplate.match(tpl, "test://template/123/data")).toEqual({ id: "123" })
    expect(UriTemplate.match(tpl, "test://template//data")).toBeUndefined()
    expect(UriTemplate.match(tpl, "test://template/1/2/data")).toBeUndefined()
    expect(UriTemplate.match(tpl, "test://template/123/data/")).toBeUndefined()
    expect(UriTemplate.match(tpl, "test://other/123/data")).toBeUndefined()
  })

  it("{var} takes unreserved characters and triplets only", () => {
    const tpl = t("file:///{path}")
    expect(UriTemplate.match(tpl, "file:///a-b.c_d~e")).toEqual({ path: "a-b.c_d~e" })
    expect(UriTemplate.match(tpl, "file:///a/b")).toBeUndefined()
    expect(UriTemplate.match(tpl, "file:///a?b")).toBeUndefined()
    expect(UriTemplate.match(tpl, "file:///a#b")).toBeUndefined()
    expect(UriTemplate.match(tpl, "file:///a:b")).toBeUndefined()
    expect(UriTemplate.match(tpl, "file:///a%2Fb")).toEqual({ path: "a/b" })
  })

  it("{+var} takes reserved characters too", () => {
    const tpl = t("file:///{+path}")
    expect(UriTemplate.match(tpl, "file:///src/a.ts")).toEqual({ path: "src/a.ts" })
    expect(UriTemplate.match(tpl, "file:///a?b=1#c")).toEqual({ path: "a?b=1#c" })
    expect(UriTemplate.match(tpl, "file:///a%20b/c")).toEqual({ path: "a b/c" })
    expect(UriTemplate.match(tpl, "file:///")).toBeUndefined()
    expect(UriTemplate.match(t("file:///{+path}/meta"), "file:///a/meta/meta")).toEqual({ path: "a/meta" })
  })

  it("{/var} and {/var*} take path segments", () => {
    const seg = t("a://x{/id}")
    expect(UriTemplate.match(seg, "a://x/42")).toEqual({ id: "42" })
    expect(UriTemplate.match(seg, "a://x")).toBeUndefined()
    expect(UriTemplate.match(seg, "a://x/")).toBeUndefined()
    expect(UriTemplate.match(seg, "a://x/4/2")).toBeUndefined()
    const rest = t("a://x{/rest*}")
    expect(UriTemplate.match(rest, "a://x")).toEqual({ rest: [] })
    expect(UriTemplate.match(rest, "a://x/a/b%2Fc/d")).toEqual({ rest: ["a", "b/c", "d"] })
    expect(UriTemplate.match(rest, "a://x/a//d")).toBeUndefined()
    expect(UriTemplate.match(t("a://x{/rest*}/end"), "a://x/a/end/end")).toEqual({ rest: ["a", "end"] })
  })

  it("{?a,b} and {&c} take query pairs in template order, each optional", () => {
    const tpl = t("a://s{?a,b}{&c}")
    expect(UriTemplate.match(tpl, "a://s?a=1&b=2&c=3")).toEqual({ a: "1", b: "2", c: "3" })
    expect(UriTemplate.match(tpl, "a://s?b=2")).toEqual({ b: "2" })
    expect(UriTemplate.match(tpl, "a://s&c=3")).toEqual({ c: "3" })
    expect(UriTemplate.match(tpl, "a://s?a=&c=")).toEqual({ a: "", c: "" })
    expect(UriTemplate.match(tpl, "a://s")).toEqual({})
    expect(UriTemplate.match(tpl, "a://s?b=2&a=1")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://s?a=1&z=9")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://s&a=1")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://s?a")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://s?a=x+y")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://s?a=x%20y%26")).toEqual({ a: "x y&" })
  })

  it("percent-decodes values as UTF-8 and refuses bad encodings", () => {
    const tpl = t("a://{x}/{+y}")
    expect(UriTemplate.match(tpl, "a://caf%C3%A9/%E2%9C%93/%2F")).toEqual({ x: "café", y: "✓//" })
    expect(UriTemplate.match(tpl, "a://%c3%a9/z")).toEqual({ x: "é", y: "z" })
    expect(UriTemplate.match(tpl, "a://%ZZ/z")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://%4/z")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://abc%/z")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://%FF/z")).toBeUndefined()
    expect(UriTemplate.match(tpl, "a://%C3/z")).toBeUndefined()
    // the language still contains it: matchesExact is the conservative membership test
    expect(UriTemplate.matchesExact(tpl, "a://%FF/z")).toBe(true)
    expect(UriTemplate.match(tpl, "a://é/z")).toBeUndefined()
  })

  it("gives earlier variables the longest value when a literal could end them in several places", () => {
    expect(UriTemplate.match(t("file:///{name}.json"), "file:///a.b.json")).toEqual({ name: "a.b" })
    expect(UriTemplate.match(t("a://{x}.{y}"), "a://p.q.r")).toEqual({ x: "p.q", y: "r" })
    expect(UriTemplate.match(t("a://{x}.json"), "a://.json")).toBeUndefined()
  })

  it("keeps a variable named __proto__ as a plain key", () => {
    const result = UriTemplate.match(t("a://{__proto__}"), "a://v")
    expect(result).toBeDefined()
    expect(Object.hasOwn(result!, "__proto__")).toBe(true)
    expect(result!["__proto__"]).toBe("v")
    expect(UriTemplate.expand(t("a://{__proto__}"), {})).toBe("a://")
  })

  it("stays linear on a 1 KiB template against a 100 KB hostile URI", () => {
    const filler = "a".repeat(UriTemplate.MAX_TEMPLATE_BYTES - 20)
    const source = `a://{x}${filler}{/y}`
    expect(new TextEncoder().encode(source).length).toBeLessThanOrEqual(UriTemplate.MAX_TEMPLATE_BYTES)
    const tpl = t(source)
    const hostile = "a://" + "a".repeat(100_000)
    expect(UriTemplate.match(tpl, hostile + "/z")).toEqual({ x: "a".repeat(100_000 - filler.length), y: "z" })
    expect(UriTemplate.match(tpl, hostile + "/")).toBeUndefined()
    expect(UriTemplate.match(tpl, hostile)).toBeUndefined()

    // many optional pieces and reserved runs, against a URI that almost matches everywhere
    const many = t(`a://{+p}/${Array.from({ length: 15 }, (_, i) => `{v${i}}-`).join("")}x{?${Array.from({ length: 16 }, (_, i) => `q${i}`).join(",")}}`)
    const uri = "a://" + "/-".repeat(50_000)
    expect(UriTemplate.match(many, uri)).toBeUndefined()
    const good = "a://" + "a/".repeat(25_000) + Array.from({ length: 15 }, () => "v-").join("") + "x?q3=" + "z".repeat(50_000)
    const matched = UriTemplate.match(many, good)
    expect(matched?.["p"]).toBe("a/".repeat(25_000).slice(0, -1))
    expect(matched?.["q3"]).toHaveLength(50_000)
    expect(Object.keys(matched!)).toHaveLength(1 + 15 + 1)
  })
})

describe("UriTemplate.expand", () => {
  it("expands each operator per RFC 6570", () => {
    const tpl = t("a://h/{x}/{+y}:{/z}{/w*}{?a,b}{&c}")
    expect(UriTemplate.expand(tpl, { x: "a b/?", y: "p/q?r#s", z: "é", w: ["1", "2"], a: "", c: "k&v" })).toBe(
      "a://h/a%20b%2F%3F/p/q?r#s:/%C3%A9/1/2?a=&c=k%26v"
    )
    expect(UriTemplate.expand(tpl, {})).toBe("a://h//:")
    expect(UriTemplate.expand(tpl, { w: [], b: "1" })).toBe("a://h//:?b=1")
    expect(UriTemplate.expand(t("a://{x}{/y}"), { x: ["1", "2"], y: ["3", "4"] })).toBe("a://1,2/3,4")
    // {+var} keeps existing triplets and encodes stray "%"
    expect(UriTemplate.expand(t("a://{+y}"), { y: "%41%zz!'*" })).toBe("a://%41%25zz!'*")
    expect(UriTemplate.expand(t("a://{y}"), { y: "!'()*" })).toBe("a://%21%27%28%29%2A")
  })
})

describe("expand → match round trip", () => {
  const nonEmpty = fc.string({ unit: "binary", minLength: 1, maxLength: 12 })
  const any = fc.string({ unit: "binary", maxLength: 12 })
  const noPercent = nonEmpty.filter((s) => !s.includes("%"))

  const optional = fc.option(any, { nil: undefined })

  it("recovers values in the matchable domain", () => {
    const tpl = t("repo://{owner}/x{/seg}{/rest*}{?q,r}{&s}")
    fc.assert(
      fc.property(nonEmpty, nonEmpty, fc.array(nonEmpty, { maxLength: 4 }), optional, optional, optional, (owner, seg, rest, q, r, s) => {
        const values = { owner, seg, rest, q, r, s }
        const uri = UriTemplate.expand(tpl, values)
        const expected = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined))
        expect(UriTemplate.match(tpl, uri)).toEqual(expected)
        expect(UriTemplate.matchesExact(tpl, uri)).toBe(true)
      }),
      { numRuns: 500 }
    )
  })

  it("recovers {var} and a trailing {+var}", () => {
    const tpl = t("test://template/{id}/data/{+path}")
    fc.assert(
      fc.property(nonEmpty, noPercent, (id, path) => {
        expect(UriTemplate.match(tpl, UriTemplate.expand(tpl, { id, path }))).toEqual({ id, path })
      }),
      { numRuns: 500 }
    )
  })
})

describe("UriTemplate.overlaps", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["file:///{path}", "file:///{+path}", true],
    ["a://x/{id}", "a://y/{id}", false],
    ["a://{x}/b", "a://c/{y}", true],
    ["a://x/{id}", "a://x/{id}/meta", false],
    ["a://x/{+id}", "a://x/{id}/meta", true],
    ["a://x{/p*}", "a://x", true],
    ["a://x{/p}", "a://x", false],
    ["a://x{?q}", "a://x", true],
    ["a://x{?q}", "a://x{&q}", true],
    ["a://x{?q}", "a://x?r={v}", false],
    ["a://x/{id}.json", "a://x/{id}.xml", false],
    ["a://x/{id}.json", "a://x/{+id}", true],
    ["a://{x}", "a://%41", true],
    ["a://{x}", "a://%41/", false],
    ["a://{x}", "a://x/y", false]
  ]
  for (const [a, b, expected] of cases) {
    it(`${a} vs ${b} → ${expected}`, () => {
      expect(UriTemplate.overlaps(t(a), t(b))).toBe(expected)
      expect(UriTemplate.overlaps(t(b), t(a))).toBe(expected)
    })
  }

  it("detects a template overlapping an exact resource URI", () => {
    expect(UriTemplate.matchesExact(t("file:///{path}"), "file:///README.md")).toBe(true)
    expect(UriTemplate.matchesExact(t("file:///{path}"), "file:///docs/README.md")).toBe(false)
    expect(UriTemplate.matchesExact(t("file:///{+path}"), "file:///docs/README.md")).toBe(true)
  })

  const pool = [
    "a://{x}/b",
    "a://c/{y}",
    "a://{+p}",
    "a://c{/s*}",
    "a://c/{y}{?q,r}",
    "a://{x}.{y}",
    "a://c/{y}/{z}",
    "b://{x}",
    "a://c/b{&k}"
  ]
  const value = fc.string({ unit: fc.constantFrom("a", "b", "c", ".", "/", "?", "=", "&", "%", "q"), maxLength: 5 })
  const names = fc.constantFrom("x", "y", "z", "p", "q", "r", "k")

  it("is sound: a URI in both languages implies overlap", () => {
    let common = 0
    fc.assert(
      fc.property(fc.constantFrom(...pool), fc.constantFrom(...pool), fc.dictionary(names, value), fc.array(value, { maxLength: 3 }), (a, b, values, s) => {
        const ta = t(a)
        const tb = t(b)
        const uri = UriTemplate.expand(ta, { ...values, s })
        if (UriTemplate.matchesExact(ta, uri) && UriTemplate.matchesExact(tb, uri)) {
          common++
          expect(UriTemplate.overlaps(ta, tb)).toBe(true)
        }
        expect(UriTemplate.overlaps(ta, tb)).toBe(UriTemplate.overlaps(tb, ta))
      }),
      { numRuns: 1000 }
    )
    expect(common).toBeGreaterThan(0)
  })
})
