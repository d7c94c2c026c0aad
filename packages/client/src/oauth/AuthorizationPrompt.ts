/**
 * The user's step of the authorization code flow, as a service the application provides: given the
 * authorization URL, open it in the user's browser (or print it, or drive an embedded view) and
 * give back the query of the redirect the authorization server sent to the `redirect_uri`. The OAuth
 * client checks `state` and `iss` itself; the prompt only carries the answer.
 *
 * `layerHeadless` is a user agent for authorization servers that approve without a person (test
 * servers, conformance suites, a pre-consented device): it requests the URL without following the
 * redirect and reads the `Location` header.
 *
 * @example
 * ```ts
 * import { Deferred, Effect, Layer } from "effect"
 * import * as AuthorizationPrompt from "@snodo/client/oauth/AuthorizationPrompt"
 *
 * // an application that opens the browser and waits for its loopback callback
 * declare const openBrowser: (url: URL) => Effect.Effect<void>
 * declare const callback: Deferred.Deferred<URLSearchParams>
 * const Browser = Layer.succeed(AuthorizationPrompt.AuthorizationPrompt, AuthorizationPrompt.AuthorizationPrompt.of({
 *   authorize: (url) => Effect.andThen(openBrowser(url), Deferred.await(callback))
 * }))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"

/**
 * The prompt could not get an answer (the user gave up, the browser could not be opened).
 *
 * @category errors
 * @since 0.1.0
 */
export class PromptFailed extends Schema.TaggedError<PromptFailed>()("PromptFailed", {
  message: Schema.String
}) {}

/**
 * @category services
 * @since 0.1.0
 */
export class AuthorizationPrompt extends Context.Service<AuthorizationPrompt, {
  /** Sends the user to `url`; succeeds with the query parameters of the redirect back. */
  readonly authorize: (url: URL) => Effect.Effect<URLSearchParams, PromptFailed>
}>()("@snodo/client/oauth/AuthorizationPrompt") {}

/**
 * A prompt that requests the authorization URL and reads the redirect's `Location` (no person in
 * the loop): for authorization servers that approve at once.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerHeadless: Layer.Layer<AuthorizationPrompt> = Layer.effect(
  AuthorizationPrompt,
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.transformResponse(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }))
    )
    return AuthorizationPrompt.of({
      authorize: (url) =>
        client.execute(HttpClientRequest.get(url)).pipe(
          Effect.mapError((error) => new PromptFailed({ message: `The authorization URL could not be requested: ${error.message}` })),
          Effect.flatMap((response) => {
            const location = response.headers["location"]
            if (response.status < 300 || response.status > 399 || location === undefined) {
              return Effect.fail(new PromptFailed({ message: `The authorization server answered ${response.status} without a redirect` }))
            }
            return Effect.succeed(new URL(location, url).searchParams)
          })
        )
    })
  })
).pipe(Layer.provide(FetchHttpClient.layer))
