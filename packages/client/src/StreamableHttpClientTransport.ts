/**
 * The Streamable HTTP transport: each frame is a POST to the server's endpoint; a request's
 * answer comes back as one JSON body or as an SSE stream (progress, the server's requests of the
 * initialize era, then the response), whose events go to the client as frames. Interrupting a
 * request closes its HTTP request.
 *
 * Every POST carries the headers 2026-07-28 servers check against the body (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`); on the initialize era the negotiated version and the
 * `Mcp-Session-Id` the server gave, a GET stream for the session's own notifications, a DELETE
 * when the scope closes, and a request's event stream that closed before its answer resumed with
 * a GET carrying `Last-Event-ID` after the server's `retry`. A JSON-RPC error with a null id in
 * an HTTP error answers the request its POST carried.
 *
 * The `HttpClient` comes from the Effect context and is never built here: authorization (the
 * OAuth client) is a Layer that wraps it.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { McpClient, StreamableHttpClientTransport } from "@snodo/client"
 *
 * const Client = McpClient.layer().pipe(
 *   Layer.provide(StreamableHttpClientTransport.layer({ url: "http://127.0.0.1:3000/mcp" })),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Duration, Effect, Layer, Predicate, Stream } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import { ProtocolVersionKey } from "@snodo/protocol/wire/Meta"
import { type ClientTransport, Transport } from "./ClientTransport.ts"
import * as Sse from "./internal/sse.ts"
import { TransportError } from "./McpClientError.ts"

/**
 * Where the server is.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string | URL
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>
}

const record = (value: unknown): Readonly<Record<string, unknown>> => Predicate.isObject(value) ? value : {}

/**
 * A header value: as is when it is visible ASCII without surrounding whitespace (and does not
 * itself look like the sentinel), else the `=?base64?…?=` sentinel of its UTF-8 bytes.
 */
const headerValue = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !value.startsWith("=?base64?")
    ? value
    : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

/** The `Mcp-Param-*` header of one mirrored argument, or nothing when the argument is absent. */
const paramHeader = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return headerValue(value)
    case "number":
      return Number.isFinite(value) ? String(value) : undefined
    case "boolean":
      return value ? "true" : "false"
    default:
      return undefined
  }
}

const isJsonRpc = (text: string): boolean => {
  try {
    const message: unknown = JSON.parse(text)
    return Predicate.isObject(message) && message["jsonrpc"] === "2.0"
  } catch {
    return false
  }
}

/** How many times a request's event stream is resumed before its answer is given up. */
const maxResumes = 5

/** Whether the frame is the answer (a result or an error) to request `id`. */
const answers = (frame: string, id: string | number): boolean => {
  try {
    const message: unknown = JSON.parse(frame)
    return Predicate.isObject(message) && message["id"] === id && ("result" in message || "error" in message)
  } catch {
    return false
  }
}

/** An error frame whose `id` is null, given the id of the request its POST carried. */
const withId = (text: string, id: unknown): string => {
  const message: unknown = JSON.parse(text)
  return Predicate.isObject(message) && message["id"] === null && "error" in message ? JSON.stringify({ ...message, id }) : text
}

/**
 * A transport to the endpoint at `options.url`, through the `HttpClient` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<ClientTransport, never, HttpClient.HttpClient> =>
  Effect.map(Effect.service(HttpClient.HttpClient), (http): ClientTransport => ({
    open: (receive) =>
      Effect.gen(function*() {
        const url = new URL(options.url)
        let session: string | undefined
        let version: string | undefined
        /** The `x-mcp-header` parameters of each listed tool. */
        const mirrors = new Map<string, ReadonlyArray<HeaderParams.HeaderParam>>()

        const common = (): Record<string, string> => ({
          ...options.headers,
          ...(session === undefined ? {} : { "mcp-session-id": session }),
          ...(version === undefined ? {} : { "mcp-protocol-version": version })
        })

        /**
         * A response body's messages to the client. On the initialize era an event stream that
         * ends before the answer to `awaiting` came is resumed (SEP-1699): a GET with
         * `Last-Event-ID` after the `retry` the server gave (1 s when none), up to
         * {@link maxResumes} times; the GET is read until the answer, as the server may keep it
         * open for other messages. 2026-07-28 has no resumable streams.
         */
        const deliver = (
          response: HttpClientResponse.HttpClientResponse,
          awaiting?: string | number,
          resumes = 0
        ): Effect.Effect<void, TransportError> => {
          const type = response.headers["content-type"] ?? ""
          if (type.startsWith("text/event-stream")) {
            return Effect.gen(function*() {
              let lastId: string | undefined
              let retry: number | undefined
              let answered = false
              yield* response.stream.pipe(
                Stream.decodeText,
                Sse.parse,
                Stream.runForEachWhile((event) =>
                  Effect.sync(() => {
                    if (event.id !== undefined) lastId = event.id
                    if (event.retry !== undefined) retry = event.retry
                    if (event.data === "") return true
                    if (awaiting !== undefined && answers(event.data, awaiting)) answered = true
                    receive(event.data)
                    return !(answered && resumes > 0)
                  })
                ),
                Effect.mapError((error) => new TransportError({ reason: "Closed", message: `The server's event stream failed: ${error.message}` }))
              )
              // 2026-07-28 streams are not resumable (the version header is set on the initialize era only)
              if (answered || awaiting === undefined || lastId === undefined || version === undefined || resumes >= maxResumes) return
              yield* Effect.sleep(Duration.millis(retry ?? 1000))
              const resumed = yield* Effect.mapError(
                http.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders({ ...common(), accept: "text/event-stream", "last-event-id": lastId }))),
                (error) => new TransportError({ reason: "Http", message: `GET ${url.href} (resuming after event ${lastId}) failed: ${error.message}` })
              )
              if (resumed.status !== 200) {
                return yield* new TransportError({
                  reason: "Http",
                  status: resumed.status,
                  message: `GET ${url.href} (resuming after event ${lastId}) answered ${resumed.status}`
                })
              }
              yield* deliver(resumed, awaiting, resumes + 1)
            })
          }
          return Effect.flatMap(
            Effect.mapError(response.text, (error) => new TransportError({ reason: "Http", message: error.message, status: response.status })),
            (text) => Effect.sync(() => text.trim() === "" ? undefined : receive(text))
          )
        }

        const write = (frame: string): Effect.Effect<void, TransportError> =>
          Effect.gen(function*() {
            const message = record(JSON.parse(frame))
            const method = typeof message["method"] === "string" ? message["method"] : undefined
            const params = record(message["params"])
            const bodyVersion = record(params["_meta"])[ProtocolVersionKey]
            const headers: Record<string, string> = {
              ...common(),
              accept: "application/json, text/event-stream",
              ...(typeof bodyVersion === "string" ? { "mcp-protocol-version": bodyVersion } : {}),
              ...(method === undefined ? {} : { "mcp-method": method })
            }
            // the method table says which param is `Mcp-Name` and whether a tool's parameters are mirrored
            const entry = method === undefined ? undefined : Methods.findRequest(method)
            const name = entry === undefined ? undefined : Method.nameOf(entry, params)
            if (name !== undefined) headers["mcp-name"] = headerValue(name)
            if (entry?.mirrorsArguments === true && name !== undefined) {
              const args = record(params["arguments"])
              for (const mirror of mirrors.get(name) ?? []) {
                const value = paramHeader(HeaderParams.valueAt(args, mirror.path))
                if (value !== undefined) headers[mirror.header] = value
              }
            }
            const request = HttpClientRequest.post(url).pipe(
              HttpClientRequest.setHeaders(headers),
              HttpClientRequest.bodyText(frame, "application/json")
            )
            const response = yield* Effect.mapError(
              http.execute(request),
              (error) => new TransportError({ reason: "Http", message: `POST ${url.href} failed: ${error.message}` })
            )
            const given = response.headers["mcp-session-id"]
            if (given !== undefined && method === Methods.Initialize.name) session = given
            if (response.status === 202) return
            const id = message["id"]
            if (response.status >= 200 && response.status < 300) {
              return yield* deliver(response, typeof id === "string" || typeof id === "number" ? id : undefined)
            }
            // an error status: a JSON-RPC answer in the body is the answer; anything else fails the write
            const text = yield* Effect.orElseSucceed(response.text, () => "")
            // a JSON-RPC error with a null id (the server could not read the request's id) answers this request
            if (isJsonRpc(text) && "id" in message) return receive(withId(text, message["id"]))
            return yield* new TransportError({
              reason: "Http",
              status: response.status,
              message: `POST ${url.href} answered ${response.status}${text === "" ? "" : `: ${text.slice(0, 200)}`}`
            })
          }).pipe(Effect.scoped)

        /** The initialize era's stream of the session's own messages (405 when the server has none). */
        const listen = Effect.gen(function*() {
          const response = yield* http.execute(
            HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders({ ...common(), accept: "text/event-stream" }))
          )
          if (response.status === 200) yield* deliver(response)
        }).pipe(Effect.scoped, Effect.ignore)

        const scope = yield* Effect.scope
        yield* Effect.addFinalizer(() =>
          session === undefined
            ? Effect.void
            : http.execute(HttpClientRequest.delete(url).pipe(HttpClientRequest.setHeaders(common()))).pipe(Effect.scoped, Effect.ignore)
        )
        return {
          write,
          closed: Effect.never,
          toolsListed: (tools) => {
            for (const tool of tools) {
              const declared = HeaderParams.declarations(tool.inputSchema as never)
              if (!("_tag" in declared) && declared.length > 0) mirrors.set(tool.name, declared)
            }
          },
          negotiated: (negotiatedVersion) => {
            version = negotiatedVersion
            if (session !== undefined) Effect.runFork(Effect.forkIn(listen, scope))
          }
        }
      })
  }))

/**
 * {@link make} as the client's {@link Transport}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Transport, never, HttpClient.HttpClient> => Layer.effect(Transport, make(options))
