/**
 * Reads the body of an Effect `HttpServerRequest` (what `McpHttp` serves), within a byte limit, a
 * time limit and, when given, the memory budget of the bodies read together. On Node the request's
 * `IncomingMessage` is read directly by `BodyReader` (one listener, one copy); any other platform
 * goes through `HttpServerRequest.arrayBuffer` with Effect's `MaxBodySize`.
 *
 * @example
 * ```ts
 * import * as ServerRequestBody from "./ServerRequestBody.ts"
 *
 * const body = ServerRequestBody.read(request, 2 * 1024 * 1024, 30_000)
 * // Effect<{ _tag: "Text", text } | { _tag: "TooLarge" } | { _tag: "Timeout" } | { _tag: "Malformed" } | { _tag: "Failed" } | { _tag: "OverBudget" }>
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { ByteSize, Effect, Exit, type Fiber } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import type * as Http from "node:http"
import type { BodyBudget } from "./BodyBudget.ts"
import {
  type Body,
  declaredOverBudget,
  declaredTooLarge,
  decode,
  failed,
  isNodeSource,
  type NodeSource,
  overBudget,
  readSource,
  timeout,
  tooLarge
} from "./BodyReader.ts"

const readNode = (source: NodeSource, maxBytes: number, timeoutMillis: number, budget: BodyBudget | undefined): Effect.Effect<Body> =>
  Effect.callback<Body>((resume) => {
    const stop = readSource(source, maxBytes, timeoutMillis, (body) => resume(Effect.succeed(body)), budget)
    return Effect.sync(stop)
  })

const readGeneric = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  timeoutMillis: number
): Effect.Effect<Body> =>
  request.arrayBuffer.pipe(
    Effect.map((buffer) => decode(new Uint8Array(buffer))),
    Effect.catch((error) =>
      Effect.succeed(
        error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge" ? tooLarge : failed
      )
    ),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.fromInputUnsafe(maxBytes)),
    Effect.timeoutOrElse({ duration: timeoutMillis, orElse: () => Effect.succeed(timeout) })
  )

/**
 * Reads the body of a request; with a `budget`, the bytes read on Node are taken from it while
 * the read lasts (elsewhere the declared length is checked against it).
 *
 * @category combinators
 * @since 0.1.0
 */
export const read = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  timeoutMillis: number,
  budget?: BodyBudget
): Effect.Effect<Body> => {
  if (declaredTooLarge(request.headers["content-length"], maxBytes)) return Effect.succeed(tooLarge)
  if (budget !== undefined && declaredOverBudget(request.headers["content-length"], budget)) return Effect.succeed(overBudget)
  const source = request.source
  if (!isNodeSource(source)) return readGeneric(request, maxBytes, timeoutMillis)
  writeContinue(request)
  return readNode(source, maxBytes, timeoutMillis, budget)
}

/** Answers `Expect: 100-continue` before the body is read. */
const writeContinue = (request: HttpServerRequest.HttpServerRequest): void => {
  if (request.headers["expect"]?.toLowerCase() !== "100-continue") return
  // NodeHttpServer's request answers `Expect: 100-continue` itself (and keeps the connection);
  // a request from another adapter gets the interim response written directly.
  const own = (request as unknown as { readonly writeContinue?: () => void }).writeContinue
  if (typeof own === "function") own.call(request)
  else {
    const response = NodeHttpServerRequest.toServerResponse(request) as Http.ServerResponse | undefined
    if (response !== undefined && !response.headersSent) response.writeContinue()
  }
}

/**
 * Reads the body as {@link read} does (the declared length already checked by the caller), and
 * calls `done` once with the outcome, never after the returned stop was called: with plain
 * listeners on Node's request, else in a fiber started with `fork`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const readWith = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  timeoutMillis: number,
  budget: BodyBudget | undefined,
  done: (body: Body) => void,
  fork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>
): () => void => {
  const source = request.source
  if (!isNodeSource(source)) {
    const fiber = fork(readGeneric(request, maxBytes, timeoutMillis))
    let stopped = false
    fiber.addObserver((exit) => {
      if (!stopped && Exit.isSuccess(exit)) done(exit.value)
    })
    return () => {
      stopped = true
      fiber.interruptUnsafe()
    }
  }
  writeContinue(request)
  return readSource(source, maxBytes, timeoutMillis, done, budget)
}
