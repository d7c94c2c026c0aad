/**
 * The pure parts: challenge headers, canonical resource URIs and well-known paths, discovery URL
 * order, claim readers, and the scope policy.
 */
import { Authorization, Principal, Tool } from "@snodo/core"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as AuthorizationServer from "@snodo/oauth/AuthorizationServer"
import * as Challenge from "@snodo/oauth/Challenge"
import * as ResourceMetadata from "@snodo/oauth/ResourceMetadata"
import * as Scopes from "@snodo/oauth/Scopes"
import * as TokenVerifier from "@snodo/oauth/TokenVerifier"

describe("Challenge", () => {
  const resourceMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

  it("formats the three challenges of the spec", () => {
    expect(Challenge.format({ resourceMetadata, scope: ["files:read"] })).toBe(
      `Bearer resource_metadata="${resourceMetadata}", scope="files:read"`
    )
    expect(Challenge.format({ resourceMetadata, error: "invalid_token", errorDescription: "The access token expired" })).toBe(
      `Bearer error="invalid_token", resource_metadata="${resourceMetadata}", error_description="The access token expired"`
    )
    expect(Challenge.format({ resourceMetadata, error: "insufficient_scope", scope: ["files:read", "files:write"], errorDescription: "More" })).toBe(
      `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="${resourceMetadata}", error_description="More"`
    )
    expect(Challenge.format({ resourceMetadata, scope: [] })).toBe(`Bearer resource_metadata="${resourceMetadata}"`)
  })

  it("quotes what it must", () => {
    expect(Challenge.format({ resourceMetadata: 'https://x/"a\\b', error: "invalid_request" })).toBe(
      'Bearer error="invalid_request", resource_metadata="https://x/\\"a\\\\b"'
    )
  })

  it("knows a scope token", () => {
    expect(["mcp", "files:read", "https://graph.example.com/.default", "a!#[]~"].every(Challenge.isScopeToken)).toBe(true)
    expect(["", "a b", 'a"b', "a\\b", "é"].some(Challenge.isScopeToken)).toBe(false)
  })
})

describe("ResourceMetadata", () => {
  it("canonicalizes resource URIs", () => {
    expect(ResourceMetadata.canonical("HTTPS://MCP.Example.com:443/mcp/")).toBe("https://mcp.example.com/mcp")
    expect(ResourceMetadata.canonical("https://mcp.example.com/")).toBe("https://mcp.example.com")
    expect(ResourceMetadata.canonical("http://127.0.0.1:8443/server/mcp")).toBe("http://127.0.0.1:8443/server/mcp")
    for (const bad of ["mcp.example.com", "https://mcp.example.com#fragment", "https://x/mcp?a=1", "ftp://x/mcp", "https://u:p@x/mcp"]) {
      expect(() => ResourceMetadata.canonical(bad), bad).toThrow(TypeError)
    }
    expect(ResourceMetadata.canonicalOrUndefined("not a uri")).toBeUndefined()
  })

  it("puts the well-known suffix between host and path (RFC 9728 §3.1)", () => {
    expect(ResourceMetadata.metadataUrl("https://mcp.example.com/public/mcp")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
    )
    expect(ResourceMetadata.metadataUrl("https://mcp.example.com")).toBe("https://mcp.example.com/.well-known/oauth-protected-resource")
    expect(ResourceMetadata.metadataPath("https://mcp.example.com:8443/mcp/")).toBe("/.well-known/oauth-protected-resource/mcp")
  })

  it("writes the document", () => {
    expect(ResourceMetadata.document({ resource: "https://MCP.example.com/mcp", authorizationServers: ["https://auth.example.com"] })).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"]
    })
  })
})

describe("AuthorizationServer.metadataUrls", () => {
  it("tries RFC 8414 first, then OpenID Connect, as the MCP spec orders them", () => {
    expect(AuthorizationServer.metadataUrls("https://auth.example.com")).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration"
    ])
    expect(AuthorizationServer.metadataUrls("https://auth.example.com/tenant1/")).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration"
    ])
  })
})

describe("TokenVerifier claim readers", () => {
  it("reads scope and scp", () => {
    expect(TokenVerifier.scopesOf({ scope: "a  b" })).toEqual(["a", "b"])
    expect(TokenVerifier.scopesOf({ scp: ["a", 1, "b"] })).toEqual(["a", "b"])
    expect(TokenVerifier.scopesOf({ scp: "a b" })).toEqual(["a", "b"])
    expect(TokenVerifier.scopesOf({})).toEqual([])
  })

  it("finds the subject and the client", () => {
    expect(TokenVerifier.subjectOf({ sub: "ada", client_id: "app" })).toBe("ada")
    expect(TokenVerifier.subjectOf({ client_id: "app" })).toBe("app")
    expect(TokenVerifier.subjectOf({ sub: "" })).toBeUndefined()
    expect(TokenVerifier.clientOf({ azp: "app" })).toBe("app")
  })

  it("compares audiences in canonical form, and only whole ones", () => {
    const resource = "https://mcp.example.com/mcp"
    expect(TokenVerifier.audienceIncludes(resource, resource)).toBe(true)
    expect(TokenVerifier.audienceIncludes(["other", "HTTPS://MCP.EXAMPLE.COM/mcp/"], resource)).toBe(true)
    expect(TokenVerifier.audienceIncludes("https://mcp.example.com/mcp/admin", resource)).toBe(false)
    expect(TokenVerifier.audienceIncludes("https://mcp.example.com", resource)).toBe(false)
    expect(TokenVerifier.audienceIncludes(undefined, resource)).toBe(false)
    expect(TokenVerifier.audienceIncludes([1, null], resource)).toBe(false)
  })
})

describe("Scopes.requireScopes", () => {
  const tool = (name: string) => Authorization.toolComponent(Tool.make(name, { input: Schema.Struct({}) }, () => Effect.succeed("ok")))
  const as = (...scopes: Array<string>) => ({ principal: Principal.Principal.of({ id: "p", claims: { scopes } }), method: "tools/call" })
  const policy = Scopes.requireScopes({
    default: ["mcp"],
    tools: { wipe: ["records:write", "audit"], open: [] },
    implies: { admin: ["records:write"], "records:write": ["mcp"] }
  })

  it("allows a principal whose scopes cover the component's, through implications", () => {
    expect(policy.authorize("invocation", tool("echo"), as("mcp"))).toBe("allow")
    expect(policy.authorize("invocation", tool("echo"), as("admin"))).toBe("allow")
    expect(policy.authorize("invocation", tool("wipe"), as("admin", "audit"))).toBe("allow")
    expect(policy.authorize("invocation", tool("open"), as())).toBe("allow")
  })

  it("refuses the others with every scope the operation needs, as typed data", () => {
    const refused = policy.authorize("invocation", tool("wipe"), as("records:write"))
    expect(refused).not.toBe("allow")
    const error = (refused as Authorization.Refusal).error
    expect([error.code, error.message]).toEqual([Scopes.insufficientScopeCode, "Insufficient scope: this operation needs records:write audit"])
    expect(Schema.decodeUnknownSync(Scopes.InsufficientScope)(error.data)).toEqual({ error: "insufficient_scope", scope: "records:write audit" })
    expect(policy.authorize("invocation", tool("echo"), as())).not.toBe("allow")
  })

  it("lists everything, so a client can learn what to ask for", () => {
    expect(policy.authorize("discovery", tool("wipe"), as())).toBe("allow")
  })

  it("refuses rules that name no scope token", () => {
    expect(() => Scopes.requireScopes({ default: ["a b"] })).toThrow(TypeError)
    expect(() => Scopes.requireScopes({ implies: { ok: ['bad"'] } })).toThrow(TypeError)
  })
})
