/**
 * Issue 37: `trustProxy`. The client's view (address, scheme, host) is read from `Forwarded` /
 * `X-Forwarded-*` only when the peer is a trusted proxy: on a real listener, a forged
 * `X-Forwarded-For` or `X-Forwarded-Host` from an untrusted peer changes nothing, and the same
 * headers through a trusted hop reach the `Host` check, the handler's logs and the request's span
 * (`client.address`).
 */
import { McpServer, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import * as TrustProxy from "@snodo/http/TrustProxy"
import { Effect, Layer, Logger, ManagedRuntime, References, Schema, Tracer } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { post, request } from "../../packages/http/test/support/Raw.ts"

describe("TrustProxy.clientView", () => {
  const forged = { "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https", "x-forwarded-host": "mcp.example.com" }

  it("trusts nothing by default: the peer is the client, the headers are ignored", () => {
    expect(TrustProxy.clientView(undefined, "127.0.0.1", forged)).toEqual({ address: "127.0.0.1", protocol: undefined, host: undefined, trusted: false })
    expect(TrustProxy.clientView(TrustProxy.make(["10.0.0.0/8"]), "127.0.0.1", forged).trusted).toBe(false)
  })

  it("reads the forwarded view from a trusted peer", () => {
    const view = TrustProxy.clientView(TrustProxy.make(["loopback"]), "::ffff:127.0.0.1", forged)
    expect(view).toEqual({ address: "203.0.113.7", protocol: "https", host: "mcp.example.com", trusted: true })
  })

  it("walks the chain from the nearest hop: the first untrusted address is the client", () => {
    const trust = TrustProxy.make(["127.0.0.1", "10.0.0.0/8"])
    // 198.51.100.1 (forged by the client) -> 203.0.113.7 (the client) -> 10.1.2.3 (inner proxy) -> peer.
    const view = TrustProxy.clientView(trust, "127.0.0.1", { "x-forwarded-for": "198.51.100.1, 203.0.113.7, 10.1.2.3" })
    expect(view.address).toBe("203.0.113.7")
  })

  it("a hop count trusts that many hops, whatever their addresses", () => {
    const headers = { "x-forwarded-for": "198.51.100.1, 203.0.113.7" }
    expect(TrustProxy.clientView(TrustProxy.make(1), "192.0.2.10", headers).address).toBe("203.0.113.7")
    expect(TrustProxy.clientView(TrustProxy.make(2), "192.0.2.10", headers).address).toBe("198.51.100.1")
    expect(TrustProxy.clientView(TrustProxy.make(0), "192.0.2.10", headers)).toMatchObject({ address: "192.0.2.10", trusted: false })
  })

  it("reads RFC 7239 Forwarded before X-Forwarded-*, quoted IPv6 and ports included", () => {
    const view = TrustProxy.clientView(TrustProxy.make(["loopback"]), "127.0.0.1", {
      forwarded: "for=198.51.100.1, for=\"[2001:db8::7]:4711\";proto=https;host=\"mcp.example.com\"",
      "x-forwarded-for": "192.0.2.99"
    })
    expect(view).toEqual({ address: "2001:db8::7", protocol: "https", host: "mcp.example.com", trusted: true })
  })

  it("refuses a spec that is not an address, a CIDR block or a known name", () => {
    expect(() => TrustProxy.make(["10.0.0.0/33"])).toThrow(/10\.0\.0\.0\/33/)
    expect(() => TrustProxy.make(["proxy.internal"])).toThrow(/not an address/)
    expect(TrustProxy.parse("2")).toBe(2)
    expect(TrustProxy.parse("loopback, 10.0.0.0/8")).toEqual(["loopback", "10.0.0.0/8"])
  })
})

const logged: Array<{ readonly message: string; readonly address: unknown }> = []
const Capture = Logger.layer([Logger.make((options) => {
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
  logged.push({ message: String(options.message), address: annotations["client.address"] })
})])

const whoami = Tool.make("whoami", { input: Schema.Struct({ tag: Schema.String }) }, ({ tag }) => Effect.as(Effect.log(`whoami ${tag}`), tag))
const Server = McpServer.make({ name: "trust-proxy", version: "1.0.0" }).add(whoami)

/** Every span the servers start (the server is traced: its span per request). */
const spans: Array<Tracer.NativeSpan> = []
const Tracing = Layer.succeed(Tracer.Tracer, Tracer.make({
  span: (options) => {
    const span = new Tracer.NativeSpan(options)
    spans.push(span)
    return span
  }
}))
/** The `client.address` of the request span of the call made by `call` (spans started meanwhile). */
const spanAddressOf = async (call: () => Promise<unknown>) => {
  const before = spans.length
  await call()
  return spans.slice(before).find((span) => span.name === "tools/call whoami")?.attributes.get("client.address")
}

const serve = async (options: NodeServe.ServeOptions) => {
  const runtime = ManagedRuntime.make(
    NodeServe.layer({ port: 0, ...options }).pipe(Layer.provide(Server.layer), Layer.provide(Layer.merge(Capture, Tracing)))
  )
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return { runtime, url: `http://127.0.0.1:${server.address.port}/mcp` }
}

const call = (url: string, tag: string, headers: Record<string, string>) => post(url, request("tools/call", { name: "whoami", arguments: { tag } }), headers)
const addressLogged = (tag: string) => logged.find((entry) => entry.message === `whoami ${tag}`)?.address

describe("trustProxy on a real listener (the peer is 127.0.0.1)", () => {
  let trusted: Awaited<ReturnType<typeof serve>>
  let untrusted: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    trusted = await serve({ trustProxy: ["127.0.0.1"], allowedHosts: ["mcp.example.com", "127.0.0.1"], allowedOrigins: "same-origin" })
    // Trusts a proxy that is not the peer: the peer's forwarded headers are forgeries.
    untrusted = await serve({ trustProxy: ["10.0.0.1"], allowedHosts: ["mcp.example.com", "127.0.0.1"], allowedOrigins: "same-origin" })
  })
  afterAll(async () => {
    await trusted?.runtime.dispose()
    await untrusted?.runtime.dispose()
  })

  it("a forged X-Forwarded-For from an untrusted peer is ignored; through a trusted hop it is the client's address", async () => {
    const headers = { "x-forwarded-for": "203.0.113.7" }
    const forgedSpan = await spanAddressOf(async () => expect((await call(untrusted.url, "forged", headers)).status).toBe(200))
    expect(addressLogged("forged")).toBe("127.0.0.1")
    expect(forgedSpan).toBe("127.0.0.1")
    const honouredSpan = await spanAddressOf(async () => expect((await call(trusted.url, "honoured", headers)).status).toBe(200))
    expect(addressLogged("honoured")).toBe("203.0.113.7")
    expect(honouredSpan).toBe("203.0.113.7")
  })

  it("X-Forwarded-Host reaches the Host check only through a trusted hop", async () => {
    const evil = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" }
    // Untrusted: the forged host is ignored, the request's own Host (127.0.0.1) is allowed.
    expect((await call(untrusted.url, "evil-ignored", evil)).status).toBe(200)
    // Trusted: the client addressed evil.example, which the allowlist refuses.
    const refused = await call(trusted.url, "evil-refused", evil)
    expect(refused.status).toBe(403)
    expect(refused.text).toContain("evil.example")
    // Trusted, the public name the proxy was addressed by: allowed, with a same-origin Origin.
    const publicName = { "x-forwarded-host": "mcp.example.com", "x-forwarded-proto": "https", origin: "https://mcp.example.com" }
    expect((await call(trusted.url, "public", publicName)).status).toBe(200)
  })

  it("an invalid trustProxy fails the Layer with a ConfigurationError", async () => {
    const runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, trustProxy: ["not-an-address"] }).pipe(Layer.provide(Server.layer)))
    await expect(runtime.runPromise(Effect.service(HttpServer.HttpServer))).rejects.toThrow(/trustProxy: "not-an-address"/)
    await runtime.dispose()
  })
})
