/**
 * The OAuth client's parts one by one: challenge parsing, the well-known URL orders, the URL rules,
 * PKCE (RFC 7636's own example), registration metadata, configuration errors.
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import * as AuthorizationCode from "../../src/oauth/AuthorizationCode.ts"
import * as Discovery from "../../src/oauth/Discovery.ts"
import * as Metadata from "../../src/oauth/Metadata.ts"
import * as OAuthClient from "../../src/oauth/OAuthClient.ts"
import * as Pkce from "../../src/oauth/Pkce.ts"
import * as Registration from "../../src/oauth/Registration.ts"
import * as TokenStore from "../../src/oauth/TokenStore.ts"
import * as WwwAuthenticate from "../../src/oauth/WwwAuthenticate.ts"

describe("WwwAuthenticate.parse", () => {
  it("reads resource_metadata and scope of a 401 challenge", () => {
    expect(WwwAuthenticate.parse('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"')).toEqual({
      resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
      scope: ["files:read", "files:write"],
      error: undefined,
      errorDescription: undefined
    })
  })

  it("reads error, token values, escapes, and the scheme case-insensitively", () => {
    expect(WwwAuthenticate.parse('bearer error=insufficient_scope, scope="a", error_description="needs \\"a\\""')).toMatchObject({
      error: "insufficient_scope",
      scope: ["a"],
      errorDescription: 'needs "a"'
    })
  })

  it("takes only the Bearer challenge's parameters when the header has several schemes", () => {
    const challenge = WwwAuthenticate.parse('Basic realm="x", scope="basic-only", Bearer scope="mcp", DPoP algs="ES256", error="other"')
    expect(challenge.scope).toEqual(["mcp"])
    expect(challenge.error).toBeUndefined()
  })

  it("reads a DPoP challenge (RFC 9449 §7.1) when the header has no Bearer one", () => {
    const challenge = WwwAuthenticate.parse('DPoP error="use_dpop_nonce", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"')
    expect(challenge.error).toBe("use_dpop_nonce")
    expect(challenge.resourceMetadata).toBe("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
  })

  it("gives nothing for no header, another scheme, or an empty scope", () => {
    expect(WwwAuthenticate.parse(undefined).resourceMetadata).toBeUndefined()
    expect(WwwAuthenticate.parse('Basic realm="x"').scope).toBeUndefined()
    expect(WwwAuthenticate.parse('Bearer scope=""').scope).toBeUndefined()
  })
})

describe("Discovery: the spec's well-known URL orders", () => {
  it("Protected Resource Metadata: path-suffixed first, then the root; the root only for a root endpoint", () => {
    expect(Discovery.protectedResourceUrls("https://example.com/public/mcp")).toEqual([
      "https://example.com/.well-known/oauth-protected-resource/public/mcp",
      "https://example.com/.well-known/oauth-protected-resource"
    ])
    expect(Discovery.protectedResourceUrls("https://example.com/")).toEqual(["https://example.com/.well-known/oauth-protected-resource"])
  })

  it("authorization server metadata: RFC 8414 and OIDC path insertion, then OIDC path appending; two root forms without a path", () => {
    expect(Discovery.authorizationServerUrls("https://auth.example.com/tenant1")).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration"
    ])
    expect(Discovery.authorizationServerUrls("https://auth.example.com")).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration"
    ])
  })
})

describe("Metadata: URL rules", () => {
  it("https anywhere, http only on loopback", () => {
    expect(Metadata.isSecureUrl("https://auth.example.com/token")).toBe(true)
    expect(Metadata.isSecureUrl("http://localhost:3000/token")).toBe(true)
    expect(Metadata.isSecureUrl("http://[::1]:3000/token")).toBe(true)
    expect(Metadata.isSecureUrl("http://auth.example.com/token")).toBe(false)
    expect(Metadata.isSecureUrl("ftp://localhost/x")).toBe(false)
    expect(Metadata.isSecureUrl("/relative")).toBe(false)
  })

  it("a resource covers its own URL and the URLs below it on the same origin, nothing else", () => {
    expect(Metadata.resourceCovers("https://mcp.example.com/mcp", "https://mcp.example.com/mcp")).toBe(true)
    expect(Metadata.resourceCovers("https://mcp.example.com", "https://mcp.example.com/mcp")).toBe(true)
    expect(Metadata.resourceCovers("https://mcp.example.com/mc", "https://mcp.example.com/mcp")).toBe(false)
    expect(Metadata.resourceCovers("https://evil.example.com/mcp", "https://mcp.example.com/mcp")).toBe(false)
    expect(Metadata.resourceCovers("https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp")).toBe(false)
    expect(Metadata.resourceCovers("not a url", "https://mcp.example.com/mcp")).toBe(false)
  })

  it("the resource of an endpoint drops the query, the fragment and a trailing slash", () => {
    expect(Metadata.resourceOf("https://mcp.example.com/mcp/?session=1#x")).toBe("https://mcp.example.com/mcp")
  })
})

describe("Pkce", () => {
  it("computes RFC 7636 Appendix B's challenge", async () => {
    expect(await Effect.runPromise(Pkce.challengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  })

  it("makes 43-character base64url verifiers, a fresh one each time, with their challenge", async () => {
    const [a, b] = await Effect.runPromise(Effect.all([Pkce.make, Pkce.make]))
    expect(a!.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(a!.verifier).not.toBe(b!.verifier)
    expect(await Effect.runPromise(Pkce.challengeOf(a!.verifier))).toBe(a!.challenge)
  })
})

describe("Registration", () => {
  const options: Registration.Options = { clientName: "agent", clientMetadata: { client_uri: "https://agent.example.com" } }

  it("registers a loopback redirect as a native application with the code and refresh grants", () => {
    expect(Registration.clientMetadata(options, { grant: "authorization_code", redirectUri: "http://127.0.0.1:8765/cb" }, "none")).toEqual({
      client_name: "agent",
      redirect_uris: ["http://127.0.0.1:8765/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: "native",
      token_endpoint_auth_method: "none",
      client_uri: "https://agent.example.com"
    })
  })

  it("registers a remote redirect as a web application, and a machine client with client_credentials only", () => {
    expect(Registration.clientMetadata(options, { grant: "authorization_code", redirectUri: "https://agent.example.com/cb" }, "none")["application_type"]).toBe("web")
    expect(Registration.clientMetadata(options, { grant: "client_credentials" }, "client_secret_basic")).toMatchObject({
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_basic"
    })
  })

  it("a Client ID Metadata Document URL is https with a path", () => {
    expect(Registration.isClientIdUrl("https://agent.example.com/oauth/client.json")).toBe(true)
    expect(Registration.isClientIdUrl("https://agent.example.com/")).toBe(false)
    expect(Registration.isClientIdUrl("http://agent.example.com/client.json")).toBe(false)
  })
})

describe("OAuthClient.make: configuration", () => {
  const make = (options: OAuthClient.Options) => Effect.runPromiseExit(OAuthClient.make(options).pipe(Effect.provide(TokenStore.layerMemory)))

  it("fails with OAuthConfigError for a client metadata URL that is not https, or a relative redirect URI", async () => {
    const cimd = await make({ clientName: "a", flow: { grant: "client_credentials" }, clientMetadataUrl: "http://agent.example.com/c.json" })
    expect(Exit.isFailure(cimd) && String(cimd.cause)).toContain("OAuthConfigError")
    const redirect = await make({ clientName: "a", flow: { grant: "authorization_code", redirectUri: "/callback" } })
    expect(Exit.isFailure(redirect) && String(redirect.cause)).toContain("The redirect URI is not an absolute URL")
  })

  it("builds with valid options", async () => {
    expect(Exit.isSuccess(await make({ clientName: "a", flow: { grant: "authorization_code", redirectUri: "http://127.0.0.1/cb" } }))).toBe(true)
  })
})

describe("AuthorizationCode.validateResponse: RFC 9207 as the spec's table says, then state, error, code", () => {
  const issuer = "https://auth.example.com"
  const check = (query: string, issParameterSupported: boolean) =>
    Effect.runSync(Effect.result(AuthorizationCode.validateResponse(new URLSearchParams(query), { issuer, issParameterSupported, state: "s" })))
  const reason = (query: string, issParameterSupported: boolean) => {
    const result = check(query, issParameterSupported)
    return result._tag === "Success" ? `code ${result.success}` : result.failure.reason
  }
  const iss = encodeURIComponent(issuer)

  it("advertised and present: compared; advertised and absent: refused", () => {
    expect(reason(`code=c&state=s&iss=${iss}`, true)).toBe("code c")
    expect(reason("code=c&state=s", true)).toBe("issuer")
  })

  it("not advertised and present: compared all the same; not advertised and absent: proceeds", () => {
    expect(reason("code=c&state=s&iss=https%3A%2F%2Fevil.example.com", false)).toBe("issuer")
    expect(reason(`code=c&state=s&iss=${iss}`, false)).toBe("code c")
    expect(reason("code=c&state=s", false)).toBe("code c")
  })

  it("no normalization: a trailing slash or an upper-case host is another issuer", () => {
    expect(reason(`code=c&state=s&iss=${iss}%2F`, true)).toBe("issuer")
    expect(reason("code=c&state=s&iss=https%3A%2F%2FAUTH.example.com", true)).toBe("issuer")
  })

  it("an error response from another issuer is refused for its issuer, its error never read", () => {
    const result = check("error=access_denied&state=s&iss=https%3A%2F%2Fevil.example.com", true)
    expect(result._tag === "Failure" && result.failure.reason).toBe("issuer")
    expect(result._tag === "Failure" && result.failure.error).toBeUndefined()
  })

  it("then the state, then an error (with its code), then a missing code", () => {
    expect(reason(`code=c&state=other&iss=${iss}`, true)).toBe("state")
    const denied = check(`error=access_denied&error_description=no&state=s&iss=${iss}`, true)
    expect(denied._tag === "Failure" && [denied.failure.reason, denied.failure.error, denied.failure.message]).toEqual(["denied", "access_denied", "no"])
    expect(reason(`state=s&iss=${iss}`, true)).toBe("no_code")
  })
})
