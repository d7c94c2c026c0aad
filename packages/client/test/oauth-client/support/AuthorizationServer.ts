/**
 * A real authorization server on loopback for the OAuth client's end-to-end tests:
 * `oauth2-mock-server` (RS256 keys, JWKS, OpenID Connect discovery, `/authorize` that approves at
 * once and checks PKCE at `/token`), made into what an MCP client meets in production:
 *
 * - metadata with `authorization_response_iss_parameter_supported`, `iss` on every redirect
 *   (RFC 9207), a `registration_endpoint` (RFC 7591) and the auth methods `none` and
 *   `client_secret_basic`; only OpenID Connect discovery is served, so clients must fall back to it;
 * - codes remember the scope, resource and client of their authorization; access tokens carry that
 *   scope, the RFC 8707 `resource` as `aud`, and the client; refresh tokens keep the scope;
 * - `client_credentials` needs a registered client with its secret in Basic auth;
 * - `expiresIn` makes token responses say the token expires sooner than its JWT does (to see the
 *   client refresh before it sends).
 *
 * Every authorization, registration and token request is recorded for assertions.
 */
import { randomUUID } from "node:crypto"
import { Events, OAuth2Server } from "oauth2-mock-server"

export interface Recorded {
  readonly authorizations: Array<Record<string, string>>
  readonly registrations: Array<Record<string, unknown>>
  readonly tokens: Array<{ readonly grant: string; readonly resource: string | undefined; readonly client: string | undefined; readonly scope: string }>
}

export interface TestAuthorizationServer {
  readonly issuer: string
  readonly recorded: Recorded
  /** Registers a confidential client (for `client_credentials` and pre-registration tests). */
  readonly register: (clientId: string, secret: string) => void
  /** Token responses from now on say `expires_in: seconds`. */
  readonly setExpiresIn: (seconds: number | undefined) => void
  readonly stop: () => Promise<void>
}

export const start = async (): Promise<TestAuthorizationServer> => {
  const server = new OAuth2Server()
  await server.issuer.keys.generate("RS256")
  const recorded: Recorded = { authorizations: [], registrations: [], tokens: [] }
  const clients = new Map<string, string | undefined>()
  const codes = new Map<string, { scope: string; client: string }>()
  const refreshScopes = new Map<string, string>()
  let expiresIn: number | undefined

  const basic = (authorization: string | undefined) => {
    if (authorization?.startsWith("Basic ") !== true) return undefined
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    const id = decodeURIComponent(decoded.slice(0, colon))
    const secret = decodeURIComponent(decoded.slice(colon + 1))
    return clients.has(id) && clients.get(id) === secret ? id : undefined
  }

  server.service.on(Events.BeforeWellKnownOpenIdConfiguration, (response) => {
    Object.assign(response.body, {
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${server.issuer.url}/register`,
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
      scopes_supported: ["mcp", "mcp:admin"]
    })
  })
  server.service.addRoute("POST", "/register", (req, res) => {
    const body: Record<string, unknown> = typeof req.body === "object" && req.body !== null ? { ...req.body } : {}
    recorded.registrations.push(body)
    const clientId = `registered-${randomUUID()}`
    const secret = body["token_endpoint_auth_method"] === "none" ? undefined : randomUUID()
    clients.set(clientId, secret)
    res.writeHead(201, { "content-type": "application/json" })
    res.end(JSON.stringify({ ...body, client_id: clientId, ...(secret === undefined ? {} : { client_secret: secret }) }))
  })
  server.service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
    const query = Object.fromEntries(new URL(req.url ?? "/", "http://localhost").searchParams)
    recorded.authorizations.push(query)
    const code = redirect.url.searchParams.get("code")
    if (code !== null) codes.set(code, { scope: query["scope"] ?? "", client: query["client_id"] ?? "" })
    redirect.url.searchParams.set("iss", server.issuer.url!)
  })
  /** What a token request asks for (the mock signs an access and an ID token per request). */
  const grantOf = (req: { readonly body?: unknown; readonly headers: { readonly authorization?: string | undefined } }) => {
    const body: Record<string, unknown> = typeof req.body === "object" && req.body !== null ? { ...req.body } : {}
    const grant = String(body["grant_type"])
    const resource = typeof body["resource"] === "string" ? body["resource"] : undefined
    const client = basic(req.headers.authorization) ?? (typeof body["client_id"] === "string" ? body["client_id"] : undefined)
    const scope = grant === "authorization_code"
      ? codes.get(String(body["code"]))?.scope ?? ""
      : grant === "refresh_token"
      ? refreshScopes.get(String(body["refresh_token"])) ?? ""
      : typeof body["scope"] === "string" ? body["scope"] : ""
    return { grant, resource, client, scope }
  }
  server.service.on(Events.BeforeTokenSigning, (token, req) => {
    const { client, resource, scope } = grantOf(req)
    token.payload["scope"] = scope
    token.payload["client_id"] = client
    if (resource !== undefined) token.payload["aud"] = resource
    else delete token.payload["aud"]
  })
  server.service.on(Events.BeforeResponse, (response, req) => {
    if (typeof response.body !== "object" || response.body === null) return
    const granted = grantOf(req)
    recorded.tokens.push(granted)
    if (granted.grant === "client_credentials" && basic(req.headers.authorization) === undefined) {
      response.statusCode = 401
      response.body = { error: "invalid_client" }
      return
    }
    response.body["scope"] = granted.scope
    if (typeof response.body["refresh_token"] === "string") refreshScopes.set(response.body["refresh_token"], granted.scope)
    if (expiresIn !== undefined) response.body["expires_in"] = expiresIn
  })
  await server.start(0, "127.0.0.1")
  return {
    issuer: server.issuer.url!,
    recorded,
    register: (clientId, secret) => void clients.set(clientId, secret),
    setExpiresIn: (seconds) => void (expiresIn = seconds),
    stop: () => server.stop()
  }
}
