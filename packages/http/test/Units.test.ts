/** The pure parts of the transport: header values, negotiation, security policies, statuses. */
import { EventEmitter } from "node:events"
import { Effect } from "effect"
import { describe, expect, it, vi } from "vitest"
import * as BodyBudget from "../src/BodyBudget.ts"
import * as BodyReader from "../src/BodyReader.ts"
import * as Negotiation from "../src/Negotiation.ts"
import * as Options from "@snodo/http/Options"
import * as RequestHead from "../src/RequestHead.ts"
import * as Security from "@snodo/http/Security"
import * as Status from "@snodo/http/Status"

describe("RequestHead.decodeValue", () => {
  it("decodes the spec's examples", () => {
    expect(RequestHead.decodeValue("us-west1")).toBe("us-west1")
    expect(RequestHead.decodeValue("=?base64?SGVsbG8sIOS4lueVjA==?=")).toBe("Hello, 世界")
    expect(RequestHead.decodeValue("=?base64?IHBhZGRlZCA=?=")).toBe(" padded ")
    expect(RequestHead.decodeValue("=?base64?bGluZTEKbGluZTI=?=")).toBe("line1\nline2")
    expect(RequestHead.decodeValue("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")).toBe("=?base64?literal?=")
    expect(RequestHead.decodeValue("=?base64??=")).toBe("")
  })

  it("refuses bad Base64, invalid UTF-8 and invalid characters; treats partial sentinels literally", () => {
    expect(RequestHead.decodeValue("=?base64?SGVsbG8?=")).toBeUndefined()
    expect(RequestHead.decodeValue("=?base64?SGVs!!!bG8=?=")).toBeUndefined()
    expect(RequestHead.decodeValue("=?base64?/w==?=")).toBeUndefined()
    expect(RequestHead.decodeValue("caf\u00e9")).toBeUndefined()
    expect(RequestHead.decodeValue("a\u0000b")).toBeUndefined()
    expect(RequestHead.decodeValue("=?base64?SGVsbG8=")).toBe("=?base64?SGVsbG8=")
    expect(RequestHead.decodeValue("SGVsbG8=?=")).toBe("SGVsbG8=?=")
    expect(RequestHead.decodeValue("  spaced\t")).toBe("spaced")
    expect(RequestHead.decodeValue("a b\tc")).toBe("a b\tc")
  })
})

describe("RequestHead.fromRaw", () => {
  it("reads the names it needs in any case and counts every byte", () => {
    const raw = [
      "HoSt", "a", "MCP-Method", "tools/call", "mcp-name", "echo", "TraceParent", "00-x", "TRACESTATE", "k=v",
      "tracestate", "l=w", "Authorization", "Bearer t", "accept", "application/json", "Hosts", "b", "mcp", "c",
      "Mcp-Name", "again", "traceparentx", "y", "authorizations", "z", "host", "second"
    ]
    const head = RequestHead.fromRaw(raw, "127.0.0.1")
    expect(head.hosts).toBe(2)
    expect(head.authorizations).toBe(1)
    expect(head.trace).toStrictEqual({ traceparent: "00-x", tracestate: "k=v,l=w" })
    expect([...head.mcp.keys()]).toStrictEqual(["mcp-method", "mcp-name"])
    expect(head.mcp.get("mcp-method")).toBe("tools/call")
    expect(head.mcp.get("mcp-name")).toBe(RequestHead.Repeated)
    expect(head.bytes).toBe(raw.reduce((sum, part) => sum + part.length, 0) + 2 * raw.length)
    expect(head.address).toBe("127.0.0.1")
  })
})

describe("Negotiation", () => {
  it("accepts JSON content types only", () => {
    expect(Negotiation.isJson("application/json")).toBe(true)
    expect(Negotiation.isJson("Application/JSON; charset=UTF-8")).toBe(true)
    expect(Negotiation.isJson("application/json;charset=\"utf-8\"")).toBe(true)
    expect(Negotiation.isJson("application/json; charset=iso-8859-1")).toBe(false)
    expect(Negotiation.isJson("application/jsonx")).toBe(false)
    expect(Negotiation.isJson("text/json")).toBe(false)
    expect(Negotiation.isJson(undefined)).toBe(false)
  })

  it("needs both JSON and SSE acceptable, by the most specific range", () => {
    expect(Negotiation.acceptsBoth("application/json, text/event-stream")).toBe(true)
    expect(Negotiation.acceptsBoth("application/*, text/*")).toBe(true)
    expect(Negotiation.acceptsBoth("*/*")).toBe(true)
    expect(Negotiation.acceptsBoth("*/*;q=0.1, text/event-stream;q=0")).toBe(false)
    expect(Negotiation.acceptsBoth("application/json")).toBe(false)
    expect(Negotiation.acceptsBoth("text/html")).toBe(false)
    expect(Negotiation.acceptsBoth("garbage")).toBe(false)
    expect(Negotiation.acceptsBoth(undefined)).toBe(true)
  })
})

describe("Security", () => {
  it("reads host names", () => {
    expect(Security.hostnameOf("LocalHost:3000")).toBe("localhost")
    expect(Security.hostnameOf("[::1]:80")).toBe("[::1]")
    expect(Security.hostnameOf("[::1]")).toBe("[::1]")
    expect(Security.hostnameOf("127.0.0.1")).toBe("127.0.0.1")
    expect(Security.hostnameOf("a:b")).toBeUndefined()
    expect(Security.hostnameOf("[::1")).toBeUndefined()
    expect(Security.hostnameOf("")).toBeUndefined()
  })

  it("applies host policies", () => {
    expect(Security.checkHost("loopback", "localhost:1")).toBeUndefined()
    expect(Security.checkHost("loopback", "evil.example.com")).toBeDefined()
    expect(Security.checkHost("loopback", "localhost.evil.example.com")).toBeDefined()
    expect(Security.checkHost("loopback", undefined)).toBeDefined()
    expect(Security.checkHost("any", "evil.example.com")).toBeUndefined()
    expect(Security.checkHost(["MCP.example.com"], "mcp.example.com:443")).toBeUndefined()
    expect(Security.checkHost(["mcp.example.com"], "other.example.com")).toBeDefined()
    expect(Security.checkHost((name) => name.endsWith(".internal"), "a.internal")).toBeUndefined()
    // A refusal names the host (cut when long) and the option that accepts it.
    expect(Security.checkHost("loopback", "Evil.Example.com:8080")).toBe(
      "Forbidden: Host \"evil.example.com\" is not allowed: by default only localhost, 127.0.0.1 and [::1] are; " +
        "accept other names with the allowedHosts option"
    )
    expect(Security.checkHost(["mcp.example.com"], "other.example.com")).toBe(
      "Forbidden: Host \"other.example.com\" is not allowed by the allowedHosts option"
    )
    expect(Security.checkHost("loopback", `${"a".repeat(5000)}.example`)).toContain(`"${"a".repeat(64)}…"`)
    expect(Security.checkHost("loopback", `${"a".repeat(5000)}.example`)!.length).toBeLessThan(200)
    expect(Security.checkHost("loopback", "evil\"<script>.example")).toBe("Forbidden: invalid Host header")
  })

  it("checks each Host afresh when the same one repeats and then changes", () => {
    // The last host's name is remembered: a repeat is answered from it, a different one is not.
    expect(Security.checkHost("loopback", "127.0.0.1:3000")).toBeUndefined()
    expect(Security.checkHost("loopback", "127.0.0.1:3000")).toBeUndefined()
    expect(Security.checkHost("loopback", "evil.example.com")).toBe(
      "Forbidden: Host \"evil.example.com\" is not allowed: by default only localhost, 127.0.0.1 and [::1] are; " +
        "accept other names with the allowedHosts option"
    )
    expect(Security.checkHost(["evil.example.com"], "evil.example.com")).toBeUndefined()
    expect(Security.checkHost("loopback", "")).toBe("Forbidden: invalid Host header")
    expect(Security.checkHost("loopback", "127.0.0.1:3000")).toBeUndefined()
  })

  it("applies origin policies", () => {
    expect(Security.checkOrigin("loopback", undefined, "x")).toBeUndefined()
    expect(Security.checkOrigin("loopback", "http://localhost:5173", "localhost:3000")).toBeUndefined()
    expect(Security.checkOrigin("loopback", "http://evil.example", "localhost:3000")).toBeDefined()
    expect(Security.checkOrigin("loopback", "file://", "localhost")).toBeDefined()
    expect(Security.checkOrigin("loopback", "http://user@localhost", "localhost")).toBeDefined()
    expect(Security.checkOrigin("same-origin", "https://mcp.example.com", "mcp.example.com")).toBeUndefined()
    expect(Security.checkOrigin("same-origin", "https://app.example.com", "mcp.example.com")).toBeDefined()
    expect(Security.checkOrigin(["https://App.example.com"], "https://app.example.com", "x")).toBeUndefined()
    expect(Security.checkOrigin([], "https://app.example.com", "x")).toBeDefined()
    expect(Security.checkOrigin("any", "null", "x")).toBeUndefined()
  })

  it("knows loopback listen addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].every(Security.isLoopbackAddress)).toBe(true)
    expect(["0.0.0.0", "::", "10.0.0.1"].some(Security.isLoopbackAddress)).toBe(false)
  })
})

describe("Replies and Options", () => {
  it("maps codes to statuses by the era of the dialect that answered, and refusals to 503 / 429", () => {
    const statusOf = (code: number) => Status.ofCode("2026-07-28", code)
    expect([-32700, -32600, -32602, -32020, -32021, -32022].map(statusOf)).toEqual([400, 400, 400, 400, 400, 400])
    expect([statusOf(-32601), statusOf(-32603), statusOf(-32001), statusOf(-32019)]).toEqual([404, 500, 200, 200])
    expect([-32700, -32600, -32601, -32602, -32603].map((code) => Status.ofCode("2025-11-25", code))).toEqual([400, 400, 200, 200, 200])
    expect(Status.ofCode("2099-01-01", -32601)).toBe(404)
    const error = { _tag: "Error", frame: "{}", code: -32603, version: "2026-07-28" } as const
    expect(Status.of(error)).toBe(500)
    expect(Status.of({ ...error, refusal: { reason: "busy", retryAfterMillis: 1000 } })).toBe(503)
    expect(Status.of({ ...error, refusal: { reason: "rate-limited", retryAfterMillis: 1000 } })).toBe(429)
  })

  it("resolves defaults and refuses nonsense limits with a ConfigurationError naming each (no throw)", () => {
    expect(Effect.runSync(Options.resolve(undefined))).toEqual(Options.defaults)
    expect(Effect.runSync(Options.resolve({ deadline: "2 seconds" })).deadlineMillis).toBe(2000)
    expect(Effect.runSync(Options.resolve({ subscriptionInterval: 0 })).subscriptionIntervalMillis).toBe(0)
    const refused = Effect.runSync(Effect.flip(Options.resolve({ maxBodyBytes: 0, maxConcurrent: 1.5, sessions: { idleTimeout: -5 } })))
    expect(refused._tag).toBe("ConfigurationError")
    expect(refused.message).toBe(
      "@snodo/http options: maxConcurrent must be a positive integer, got 1.5; maxBodyBytes must be a positive integer, got 0; sessions.idleTimeout must be a positive integer, got -5"
    )
  })
})

describe("BodyReader deadlines", () => {
  /** A request whose body arrives only when told to. */
  const source = () => Object.assign(new EventEmitter(), { complete: false, readableEnded: false }) as unknown as BodyReader.NodeSource

  it("expires each read at its own deadline, whatever order they started in, and only the reads still waiting", () => {
    // Node's timers and clock are faked: the reads share one timer, and each expires at its own
    // deadline exactly, however busy the machine.
    vi.useFakeTimers()
    const started = Date.now()
    const outcomes: Array<{ readonly which: string; readonly tag: string; readonly after: number }> = []
    const read = (which: string, millis: number) => {
      const body = source()
      const stop = BodyReader.readSource(body, 1024, millis, (outcome) => outcomes.push({ which, tag: outcome._tag, after: Date.now() - started }))
      return { body, stop }
    }
    read("slow", 120)
    read("fast", 40)
    const answered = read("answered", 60)
    const stopped = read("stopped", 50)
    read("middle", 80)
    ;(answered.body as unknown as EventEmitter).emit("data", Buffer.from("{}"))
    ;(answered.body as unknown as EventEmitter).emit("end")
    stopped.stop()
    try {
      vi.advanceTimersByTime(39)
      expect(outcomes.map(({ which }) => which)).toEqual(["answered"])
      vi.advanceTimersByTime(200)
      expect(outcomes).toEqual([
        { which: "answered", tag: "Text", after: 0 },
        { which: "fast", tag: "Timeout", after: 40 },
        { which: "middle", tag: "Timeout", after: 80 },
        { which: "slow", tag: "Timeout", after: 120 }
      ])
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("BodyReader declared lengths", () => {
  it("reads a declared Content-Length as Number does, plain digits or not", () => {
    const budget = BodyBudget.make(1000)
    for (const declared of ["0", "7", "1000", "1001", "000123", "999999999999999", "9999999999999999", "", " 12 ", "1e3", "0x10", "12a", "-1", "+5"]) {
      const number = Number(declared)
      expect(BodyReader.declaredTooLarge(declared, 1000), declared).toBe(number > 1000)
      expect(BodyReader.declaredOverBudget(declared, budget), declared).toBe(!budget.fits(number))
    }
    expect(BodyReader.declaredTooLarge(undefined, 0)).toBe(false)
  })
})
