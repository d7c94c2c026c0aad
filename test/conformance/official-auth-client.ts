/**
 * The official client 2.4.0 (`@modelcontextprotocol/client`) as a conformance client for the
 * `auth/*` scenarios, so `auth-run.ts --official` can put its results beside ours from the same
 * run (docs/client-oauth.md's table). Each scenario uses the SDK's own public API the way its
 * README and the conformance suite's example client do:
 *
 * - the authorization code scenarios: an `OAuthClientProvider` of this file whose
 *   `redirectToAuthorization` follows the suite's auto-approving authorization endpoint without
 *   a browser; on `UnauthorizedError` the program calls `transport.finishAuth` with the callback's
 *   parameters and connects again (once per step: a connection, a call), as an application does after the redirect;
 *   `auth/dpop` and `auth/dpop-nonce` add the SDK's `DpopSession`;
 * - `auth/pre-registration`: the same provider, already holding the suite's client;
 * - `auth/client-credentials-basic` / `-jwt`: `ClientCredentialsProvider` / `PrivateKeyJwtProvider`;
 * - `auth/enterprise-managed-authorization`: `CrossAppAccessProvider` with
 *   `requestJwtAuthorizationGrant` at the IdP;
 * - `auth/wif-jwt-bearer`: a provider whose `prepareTokenRequest` sends the JWT bearer grant with
 *   the workload JWT (the SDK has no dedicated class for it).
 *
 * Exit code 0 when the calls went through, 1 otherwise (the negative scenarios expect a failure).
 */
import {
  Client,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  DpopSession,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  StreamableHTTPClientTransport,
  UnauthorizedError
} from "@modelcontextprotocol/client"

const url = process.argv.at(-1) ?? ""
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as Record<string, string | undefined>
const redirectUrl = "http://localhost:3000/callback"

type Provider = OAuthClientProvider & { callback?: URLSearchParams | undefined }

/** The authorization code flow without a browser: the suite's authorization endpoint redirects at once. */
const headless = (options: { readonly dpop?: boolean; readonly preRegistered?: boolean } = {}): Provider => {
  let client: ReturnType<OAuthClientProvider["clientInformation"]> = options.preRegistered === true
    ? { client_id: context["client_id"] ?? "", client_secret: context["client_secret"], redirect_uris: [redirectUrl] }
    : undefined
  let tokens: ReturnType<OAuthClientProvider["tokens"]>
  let verifier = ""
  const dpop = options.dpop === true ? DpopSession.create() : undefined
  const provider: Provider = {
    get redirectUrl() {
      return redirectUrl
    },
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    get clientMetadata() {
      return {
        client_name: "official-conformance-client",
        redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"]
      }
    },
    clientInformation: () => client,
    saveClientInformation: (information) => void (client = information),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    saveCodeVerifier: (saved) => void (verifier = saved),
    codeVerifier: () => verifier,
    redirectToAuthorization: async (authorizationUrl) => {
      const response = await fetch(authorizationUrl, { redirect: "manual" })
      const location = response.headers.get("location")
      provider.callback = location === null ? undefined : new URL(location).searchParams
    },
    ...(dpop === undefined ? {} : { dpop: () => dpop })
  }
  return provider
}

/** The provider of each machine scenario; `undefined` for the authorization code ones. */
const machine = (): OAuthClientProvider | undefined => {
  switch (scenario) {
    case "auth/client-credentials-basic":
      return new ClientCredentialsProvider({ clientId: context["client_id"] ?? "", clientSecret: context["client_secret"] ?? "" })
    case "auth/client-credentials-jwt":
      return new PrivateKeyJwtProvider({
        clientId: context["client_id"] ?? "",
        privateKey: context["private_key_pem"] ?? "",
        algorithm: context["signing_algorithm"] ?? "ES256"
      })
    case "auth/enterprise-managed-authorization":
      return new CrossAppAccessProvider({
        clientId: context["client_id"] ?? "",
        clientSecret: context["client_secret"] ?? "",
        assertion: async (target) =>
          (await requestJwtAuthorizationGrant({
            tokenEndpoint: context["idp_token_endpoint"] ?? "",
            audience: target.authorizationServerUrl,
            resource: target.resourceUrl,
            idToken: context["idp_id_token"] ?? "",
            clientId: context["idp_client_id"] ?? "",
            fetchFn: target.fetchFn
          })).jwtAuthGrant
      })
    case "auth/wif-jwt-bearer": {
      let tokens: ReturnType<OAuthClientProvider["tokens"]>
      return {
        get redirectUrl() {
          return undefined
        },
        get clientMetadata() {
          return { client_name: "official-wif", redirect_uris: [], grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"], token_endpoint_auth_method: "none" }
        },
        clientInformation: () => ({ client_id: context["client_id"] ?? "" }),
        tokens: () => tokens,
        saveTokens: (saved) => void (tokens = saved),
        redirectToAuthorization: () => {
          throw new Error("no redirect in the JWT bearer grant")
        },
        saveCodeVerifier: () => undefined,
        codeVerifier: () => "",
        prepareTokenRequest: (scope) =>
          new URLSearchParams({
            grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            assertion: context["valid_jwt"] ?? "",
            ...(scope === undefined || scope === "" ? {} : { scope })
          })
      }
    }
    default:
      return undefined
  }
}

const run = async () => {
  const fixed = machine()
  const provider: Provider = fixed ?? headless({ dpop: scenario.startsWith("auth/dpop"), preRegistered: scenario === "auth/pre-registration" })
  /** After a redirect: finishes the authorization with its callback; whether there was one. */
  const finish = async (transport: StreamableHTTPClientTransport, error: unknown) => {
    const callback = provider.callback
    if (!(error instanceof UnauthorizedError) || callback === undefined) return false
    provider.callback = undefined
    await transport.finishAuth(callback)
    return true
  }
  const connect = async () => {
    for (let attempt = 0;; attempt++) {
      const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })
      const client = new Client({ name: "official-conformance-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } })
      try {
        await client.connect(transport)
        return { client, transport }
      } catch (error) {
        if (attempt >= 1 || !(await finish(transport, error))) throw error
      }
    }
  }
  const { client, transport } = await connect()
  const authorized = async <A>(step: () => Promise<A>): Promise<A> => {
    for (let attempt = 0;; attempt++) {
      try {
        return await step()
      } catch (error) {
        if (attempt >= 1 || !(await finish(transport, error))) throw error
      }
    }
  }
  await authorized(() => client.listTools())
  if (fixed === undefined) await authorized(() => client.callTool({ name: "test-tool", arguments: {} }))
  await transport.close()
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`official client: ${scenario}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`)
    process.exit(1)
  }
)
