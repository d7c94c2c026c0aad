/** The checks before the body, in their order, and the refusals of a body that could not be read. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as Options from "@snodo/http/Options"
import * as RequestChecks from "@snodo/http/RequestChecks"

const settings = Effect.runSync(Options.resolve({ maxHeaderBytes: 1000, maxConcurrent: 2, maxBodyBytes: 4096 }))

const good: RequestChecks.CheckedHeaders = {
  host: "127.0.0.1:3000",
  "content-type": "application/json",
  accept: "application/json, text/event-stream"
}

/** A request that fails every check at once, then has one failure removed at a time. */
const steps: ReadonlyArray<{
  readonly method: string
  readonly headers: RequestChecks.CheckedHeaders
  readonly headBytes: number
  readonly inFlight: number
  readonly status: number | undefined
  readonly message?: RegExp
}> = [
  {
    method: "GET",
    headers: { host: "evil.example", origin: "https://evil.example", "content-type": "text/plain", accept: "text/html" },
    headBytes: 5000,
    inFlight: 2,
    status: 405,
    message: /Method not allowed/
  },
  {
    method: "POST",
    headers: { host: "evil.example", origin: "https://evil.example", "content-type": "text/plain", accept: "text/html" },
    headBytes: 5000,
    inFlight: 2,
    status: 431,
    message: /headers larger than 1000 bytes/
  },
  {
    method: "POST",
    headers: { host: "evil.example", origin: "https://evil.example", "content-type": "text/plain", accept: "text/html" },
    headBytes: 100,
    inFlight: 2,
    status: 403,
    message: /Host "evil\.example" is not allowed: .* the allowedHosts option/
  },
  {
    method: "POST",
    headers: { host: "localhost", origin: "https://evil.example", "content-type": "text/plain", accept: "text/html" },
    headBytes: 100,
    inFlight: 2,
    status: 403,
    message: /Origin not allowed/
  },
  {
    method: "POST",
    headers: { host: "localhost", origin: "http://localhost:5173", "content-type": "text/plain", accept: "text/html" },
    headBytes: 100,
    inFlight: 2,
    status: 503,
    message: /too many requests in flight/
  },
  {
    method: "POST",
    headers: { host: "localhost", "content-type": "text/plain", accept: "text/html" },
    headBytes: 100,
    inFlight: 1,
    status: 415,
    message: /Unsupported Media Type/
  },
  {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json; charset=utf-8", accept: "text/html" },
    headBytes: 100,
    inFlight: 1,
    status: 406,
    message: /Not Acceptable/
  },
  { method: "POST", headers: { ...good, accept: undefined }, headBytes: 100, inFlight: 1, status: undefined }
]

const errorOf = (body: string | undefined) => (JSON.parse(body ?? "null") as { error: { code: number; message: string } }).error

describe("RequestChecks.beforeBody", () => {
  it.each(steps.map((step) => [step.status ?? "accepted", step] as const))("in order: %s", (_status, step) => {
    const refusal = RequestChecks.beforeBody(step.method, step.headers, step.headBytes, settings, step.inFlight)
    expect(refusal?.status).toBe(step.status)
    if (refusal !== undefined) {
      expect(errorOf(refusal.body).message).toMatch(step.message!)
      expect(JSON.parse(refusal.body!)).not.toHaveProperty("id")
    }
  })

  it("every refusal carries its JSON-RPC error and the headers its status needs", () => {
    const refusal = (method: string, headers: RequestChecks.CheckedHeaders, headBytes = 100, inFlight = 0) =>
      RequestChecks.beforeBody(method, headers, headBytes, settings, inFlight)!
    expect(refusal("DELETE", good)).toMatchObject({ status: 405, headers: { allow: "POST" } })
    expect(errorOf(refusal("DELETE", good).body).code).toBe(-32600)
    expect(refusal("POST", good, 1001)).toMatchObject({ status: 431, headers: { connection: "close" } })
    expect(refusal("POST", { ...good, host: undefined })).toMatchObject({ status: 403 })
    expect(errorOf(refusal("POST", { ...good, host: undefined }).body).message).toMatch(/missing Host/)
    expect(refusal("POST", good, 100, 2)).toMatchObject({ status: 503, headers: { "retry-after": "1" } })
    expect(errorOf(refusal("POST", good, 100, 2).body).code).toBe(-32603)
    expect(errorOf(refusal("POST", { ...good, "content-type": undefined }).body).code).toBe(-32600)
  })

  it("only POST passes; the method is compared exactly", () => {
    for (const method of ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "post", ""]) {
      expect([method, RequestChecks.beforeBody(method, good, 100, settings, 0)?.status]).toEqual([method, 405])
    }
    expect(RequestChecks.beforeBody("POST", good, 100, settings, 0)).toBeUndefined()
  })

  it("a header sent twice (a list, as Node gives some) is not a single value", () => {
    const twice = { ...good, "content-type": ["application/json", "application/json"] }
    expect(RequestChecks.beforeBody("POST", twice, 100, settings, 0)?.status).toBe(415)
    expect(RequestChecks.beforeBody("POST", { ...good, host: ["localhost", "localhost"] }, 100, settings, 0)?.status).toBe(403)
  })

  it("the head limit and the capacity are inclusive bounds", () => {
    expect(RequestChecks.beforeBody("POST", good, 1000, settings, 1)).toBeUndefined()
    expect(RequestChecks.beforeBody("POST", good, 1001, settings, 1)?.status).toBe(431)
    expect(RequestChecks.beforeBody("POST", good, 1000, settings, 2)?.status).toBe(503)
  })
})

describe("RequestChecks.bodyRefusal", () => {
  it("maps every unreadable body to its status", () => {
    expect(RequestChecks.bodyRefusal({ _tag: "TooLarge" }, settings)).toMatchObject({ status: 413, headers: { connection: "close" } })
    expect(errorOf(RequestChecks.bodyRefusal({ _tag: "TooLarge" }, settings).body).message).toContain("4096")
    expect(RequestChecks.bodyRefusal({ _tag: "Timeout" }, settings)).toMatchObject({ status: 408, headers: { connection: "close" } })
    expect(RequestChecks.bodyRefusal({ _tag: "Malformed" }, settings).status).toBe(400)
    expect(errorOf(RequestChecks.bodyRefusal({ _tag: "Malformed" }, settings).body).code).toBe(-32700)
    expect(RequestChecks.bodyRefusal({ _tag: "Failed" }, settings)).toMatchObject({ status: 400, headers: { connection: "close" } })
  })
})
