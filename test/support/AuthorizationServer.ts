/**
 * A real OAuth 2.0 authorization server on loopback for the OAuth tests: `oauth2-mock-server`
 * (real RS256 keys, a JWKS endpoint, OpenID Connect discovery, a token endpoint with the
 * client_credentials grant, an introspection endpoint), made to behave as a production server
 * does where the mock leaves it open:
 *
 * - clients are registered (id, secret, the scopes each may get) and authenticated with
 *   `client_secret_basic`; an unknown client or a wrong secret gets `invalid_client`;
 * - a client_credentials token's `sub` and `client_id` are the client, its `scope` the requested
 *   scopes the client may get, and its `aud` the RFC 8707 `resource` the client named (the mock
 *   only knows a non-standard `aud` parameter);
 * - the metadata advertises `client_secret_basic`.
 *
 * With `dpop: true` the token endpoint also issues DPoP-bound tokens (RFC 9449 §5): a token request
 * with a valid `ES256` proof for the token endpoint gets `token_type: "DPoP"` and a token whose
 * `cnf.jkt` is the proof key's thumbprint (`boundTokens()` counts them).
 *
 * `mint` signs tokens directly with the server's keys (for the expired, foreign-audience and
 * wrong-issuer cases a real server would not issue on request). `opaque` registers an opaque
 * token that the RFC 7662 introspection endpoint (`/introspection`, advertised in the metadata;
 * the mock's own `/introspect` answers `active: true` for anything) describes to authenticated
 * clients.
 */
import { createHash, createPublicKey, randomBytes, verify } from "node:crypto"
import { Events, OAuth2Server } from "oauth2-mock-server"

export interface Client {
  readonly secret: string
  readonly scopes: ReadonlyArray<string>
}

export interface TestAuthorizationServer {
  readonly issuer: string
  readonly server: OAuth2Server
  /** A token signed with this server's current key (or `kid`): default claims, then `claims`. */
  readonly mint: (claims: Record<string, unknown>, options?: { readonly expiresIn?: number; readonly kid?: string }) => Promise<string>
  /** An opaque token whose introspection answer is `{ active: true, ...claims }`. */
  readonly opaque: (claims: Record<string, unknown>) => string
  /** Introspection requests answered so far. */
  readonly introspections: () => number
  /** A token from the token endpoint (client_credentials), as a client would get it. */
  readonly token: (clientId: string, options: { readonly resource?: string; readonly scope?: string }) => Promise<string>
  /** DPoP-bound tokens issued so far (with `dpop: true`). */
  readonly boundTokens: () => number
  readonly stop: () => Promise<void>
}

/** RFC 7638: the JWK SHA-256 thumbprint of an EC P-256 key. */
export const thumbprint = (jwk: { readonly crv?: unknown; readonly kty?: unknown; readonly x?: unknown; readonly y?: unknown }): string =>
  createHash("sha256").update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest("base64url")

/** The thumbprint of a valid ES256 DPoP proof for `POST tokenUrl`, else `undefined`. */
const proofKey = (proof: unknown, tokenUrl: string): string | undefined => {
  if (typeof proof !== "string") return undefined
  const [head, body, signature] = proof.split(".")
  if (head === undefined || body === undefined || signature === undefined) return undefined
  try {
    const header = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { typ?: string; alg?: string; jwk?: Record<string, string> }
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { htm?: string; htu?: string }
    if (header.typ !== "dpop+jwt" || header.alg !== "ES256" || header.jwk === undefined) return undefined
    if (payload.htm !== "POST" || payload.htu !== tokenUrl) return undefined
    const key = createPublicKey({ key: header.jwk, format: "jwk" })
    const valid = verify("sha256", Buffer.from(`${head}.${body}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))
    return valid ? thumbprint(header.jwk) : undefined
  } catch {
    return undefined
  }
}

const granted = (client: Client, requested: unknown): string =>
  (typeof requested === "string" ? requested.split(" ") : []).filter((scope) => client.scopes.includes(scope)).join(" ")

export const start = async (
  clients: Readonly<Record<string, Client>>,
  settings: { readonly dpop?: boolean } = {}
): Promise<TestAuthorizationServer> => {
  const server = new OAuth2Server()
  let bound = 0
  const bindingOf = (req: { readonly headers: Readonly<Record<string, unknown>> }) =>
    settings.dpop === true ? proofKey(req.headers["dpop"], `${server.issuer.url}/token`) : undefined
  await server.issuer.keys.generate("RS256")
  const clientOf = (authorization: string | undefined) => {
    if (authorization?.startsWith("Basic ") !== true) return undefined
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    const [id, secret] = [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))]
    const client = clients[id]
    return colon > 0 && client !== undefined && client.secret === secret ? { id, client } : undefined
  }
  const opaqueTokens = new Map<string, Record<string, unknown>>()
  let introspections = 0
  server.service.on(Events.BeforeWellKnownOpenIdConfiguration, (response) => {
    Object.assign(response.body, {
      token_endpoint_auth_methods_supported: ["client_secret_basic"],
      introspection_endpoint: `${server.issuer.url}/introspection`
    })
  })
  server.service.addRoute("POST", "/introspection", (req, res) => {
    introspections++
    const body: Record<string, unknown> = typeof req.body === "object" && req.body !== null ? { ...req.body } : {}
    const claims = typeof body["token"] === "string" ? opaqueTokens.get(body["token"]) : undefined
    const answer = clientOf(req.headers.authorization) === undefined
      ? { status: 401, json: { error: "invalid_client" } }
      : { status: 200, json: claims === undefined ? { active: false } : { active: true, ...claims } }
    res.writeHead(answer.status, { "content-type": "application/json" })
    res.end(JSON.stringify(answer.json))
  })
  server.service.on(Events.BeforeTokenSigning, (token, req) => {
    const caller = clientOf(req.headers.authorization)
    if (caller === undefined) return
    const body: Record<string, unknown> = { ...req.body }
    const resource = body["resource"]
    token.payload["sub"] = caller.id
    token.payload["client_id"] = caller.id
    token.payload["scope"] = granted(caller.client, body["scope"])
    if (typeof resource === "string") token.payload["aud"] = resource
    else delete token.payload["aud"]
    const jkt = bindingOf(req)
    if (jkt !== undefined) {
      token.payload["cnf"] = { jkt }
      bound++
    }
  })
  server.service.on(Events.BeforeResponse, (response, req) => {
    const caller = clientOf(req.headers.authorization)
    if (caller === undefined) {
      response.statusCode = 401
      response.body = { error: "invalid_client" }
      return
    }
    if (response.body !== "") response.body["scope"] = granted(caller.client, req.body.scope)
    if (response.body !== "" && bindingOf(req) !== undefined) response.body["token_type"] = "DPoP"
  })
  await server.start(0, "127.0.0.1")
  const issuer = server.issuer.url!
  const mint: TestAuthorizationServer["mint"] = (claims, options) =>
    server.issuer.buildToken({
      ...(options?.kid === undefined ? {} : { kid: options.kid }),
      ...(options?.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }),
      scopesOrTransform: (_header, payload) => {
        Object.assign(payload, { sub: "test-user", client_id: "test-client" }, claims)
      }
    })
  const token: TestAuthorizationServer["token"] = async (clientId, options) => {
    const body = new URLSearchParams({ grant_type: "client_credentials" })
    if (options.resource !== undefined) body.set("resource", options.resource)
    if (options.scope !== undefined) body.set("scope", options.scope)
    const response = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clients[clientId]?.secret ?? ""}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded"
      },
      body
    })
    const json = await response.json() as { access_token?: string }
    if (json.access_token === undefined) throw new Error(`no token: ${JSON.stringify(json)}`)
    return json.access_token
  }
  const opaque = (claims: Record<string, unknown>) => {
    const issued = randomBytes(24).toString("base64url")
    opaqueTokens.set(issued, claims)
    return issued
  }
  return { issuer, server, mint, opaque, introspections: () => introspections, token, boundTokens: () => bound, stop: () => server.stop() }
}
