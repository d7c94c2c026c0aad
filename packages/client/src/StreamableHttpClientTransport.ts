/**
 * The Streamable HTTP transport: each frame is a POST to the server's endpoint; a request's
 * answer comes back as one JSON body or as an SSE stream (progress, the server's requests of the
 * initialize era, then the response), whose events go to the client as frames. Interrupting a
 * request closes its HTTP request.
 *
 * Every POST carries the headers 2026-07-28 servers check against the body (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`); on the initialize era the negotiated version and the
 * `Mcp-Session-Id` the server gave, a GET stream for the session's own notifications, and a DELETE
 * when the scope closes.
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
import { Deferred, Duration, Effect, Exit, FiberMap, Layer, Predicate, Stream } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import * as HeaderParams from "@snodo/protocol/methods/HeaderParams"
import * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import { ProtocolVersionKey } from "@snodo/protocol/wire/Meta"
import { type ClientTransport, type FailRequest, type Sent, Transport } from "./ClientTransport.ts"
import * as Sse from "./internal/sse.ts"
import { TransportError } from "./McpClientError.ts"

/**
 * Where the server is, and the bounds of what it may send.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string | URL
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * The largest JSON body, SSE line or SSE event the server may send (default 16 MiB, as stdio's
   * `maxLineBytes`): a larger one fails the request it answers with `TransportError` `TooLarge`.
   */
  readonly maxResponseBytes?: number
  /** How long closing waits for the session's DELETE (initialize era; default 2 seconds). */
  readonly closeTimeout?: Duration.Input
}

/**
 * The default bound of a body, an SSE line or an SSE event (16 MiB), the same as stdio's line.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxResponseBytes = 16 * 1024 * 1024

/** How many times a request's event stream is resumed before its answer is given up (2025-11-25). */
const maxResumes = 5

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

type Message = Readonly<Record<string, unknown>>

/** Whether the frame is the answer (a result or an error) to request `id`. */
const answers = (frame: string, id: unknown): boolean => {
  const message = jsonRpc(frame)
  return message !== undefined && message["id"] === id && ("result" in message || "error" in message)
}

/** The first line of a body, at most 200 characters. */
const firstLine = (text: string): string => {
  const line = (text.trim().split(/\r?\n/, 1)[0] ?? "").trim()
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

/** The JSON-RPC message a body holds, if it is one. */
const jsonRpc = (text: string): Message | undefined => {
  try {
    const message: unknown = JSON.parse(text)
    return Predicate.isObject(message) && message["jsonrpc"] === "2.0" ? message : undefined
  } catch {
    return undefined
  }
}

/** The system error code (`ECONNREFUSED`, …) somewhere down a failure's causes. */
const codeOf = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 6 && Predicate.isObject(current); depth++) {
    const code = current["code"]
    if (typeof code === "string") return code
    current = current["cause"]
  }
  return undefined
}

const hints: Readonly<Record<string, string>> = {
  ECONNREFUSED: "is the server running, on that port?",
  ENOTFOUND: "is the host name right?",
  ECONNRESET: "the server closed the connection",
  "404": "is the URL the server's MCP endpoint?",
  "401": "the server wants authorization (the OAuth client wraps the HttpClient)",
  "405": "the server does not take POST at this URL"
}

/**
 * A transport to the endpoint at `options.url`, through the `HttpClient` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<ClientTransport, never, HttpClient.HttpClient> =>
  Effect.map(Effect.service(HttpClient.HttpClient), (http): ClientTransport => ({
    open: (receive, fail) =>
      Effect.gen(function*() {
        const url = new URL(options.url)
        const maxBytes = options.maxResponseBytes ?? defaultMaxResponseBytes
        let session: string | undefined
        let version: string | undefined
        /** The `x-mcp-header` parameters of each listed tool. */
        const mirrors = new Map<string, ReadonlyArray<HeaderParams.HeaderParam>>()
        /** The body of each request's POST, read in a fiber of its own until the client stops waiting. */
        const bodies = yield* FiberMap.make<string>()
        const failRequest: FailRequest = fail ?? (() => undefined)

        const common = (): Record<string, string> => ({
          ...options.headers,
          ...(session === undefined ? {} : { "mcp-session-id": session }),
          ...(version === undefined ? {} : { "mcp-protocol-version": version })
        })

        const tooLarge = (what: string, method: string | undefined) =>
          new TransportError({
            reason: "TooLarge",
            message: `The server's ${what}${method === undefined ? "" : ` answering ${method}`} is larger than ${maxBytes} bytes (maxResponseBytes) (${url.href})`
          })

        /** A body's text, refused past the bound (from its Content-Length, or as it arrives). */
        const text = (response: HttpClientResponse.HttpClientResponse, method: string | undefined): Effect.Effect<string, TransportError> =>
          Effect.suspend(() => {
            const length = Number(response.headers["content-length"] ?? "0")
            if (length > maxBytes) return Effect.fail(tooLarge("body", method))
            const chunks: Array<Uint8Array> = []
            let bytes = 0
            return response.stream.pipe(
              Stream.mapError((error) => new TransportError({ reason: "Closed", message: `Reading the server's answer failed: ${error.message} (${url.href})` })),
              Stream.runForEach((chunk) =>
                Effect.suspend(() => {
                  bytes += chunk.length
                  if (bytes > maxBytes) return Effect.fail(tooLarge("body", method))
                  chunks.push(chunk)
                  return Effect.void
                })
              ),
              Effect.map(() => Buffer.concat(chunks).toString("utf8"))
            )
          })

        /** Hands a frame to the client; an error with a null id in the answer to a request answers that request. */
        const hand = (frame: string, requestId: unknown): void => {
          if (requestId !== undefined && frame.includes("null")) {
            const message = jsonRpc(frame)
            if (message !== undefined && message["id"] === null && "error" in message && !("method" in message)) {
              return receive(JSON.stringify({ ...message, id: requestId }))
            }
          }
          receive(frame)
        }

        /**
         * The messages of a 2xx body: one JSON message, or an event stream's (bounded). On the
         * initialize era an event stream that ends before the answer to `requestId` came is resumed
         * (SEP-1699): a GET with `Last-Event-ID` after the `retry` the server gave (1 s when none),
         * up to {@link maxResumes} times. 2026-07-28 has no resumable streams.
         */
        const deliver = (
          response: HttpClientResponse.HttpClientResponse,
          requestId: unknown,
          method: string | undefined,
          resumes = 0
        ): Effect.Effect<void, TransportError> => {
          const type = response.headers["content-type"] ?? ""
          if (type.startsWith("text/event-stream")) {
            const parser = Sse.make(maxBytes)
            // Only an initialize-era request's stream may be resumed (the version header is set on
            // that era only): only there is each event looked at for the answer, not on a
            // 2026-07-28 stream (a listen stream's every change would be parsed twice).
            const resumable = requestId !== undefined && version !== undefined && resumes < maxResumes
            let answered = false
            return response.stream.pipe(
              Stream.mapError((error) => new TransportError({ reason: "Closed", message: `The server's event stream failed: ${error.message} (${url.href})` })),
              Stream.runForEach((chunk) =>
                Effect.suspend(() => {
                  const pushed = parser.push(chunk)
                  for (const event of pushed.events) {
                    if (resumable && !answered && answers(event, requestId)) answered = true
                    hand(event, requestId)
                  }
                  return pushed.tooLarge === undefined ? Effect.void : Effect.fail(tooLarge(`SSE ${pushed.tooLarge}`, method))
                })
              ),
              Effect.andThen(Effect.suspend(() => {
                const lastId = parser.lastEventId()
                if (!resumable || answered || lastId === undefined) return Effect.void
                return resume(lastId, parser.retry(), requestId, method, resumes)
              }))
            )
          }
          return Effect.map(text(response, method), (body) => body.trim() === "" ? undefined : hand(body, requestId))
        }

        /** A GET with `Last-Event-ID` after `retry`, read as the rest of the request's stream. */
        const resume = (lastId: string, retry: number | undefined, requestId: unknown, method: string | undefined, resumes: number) =>
          Effect.gen(function*() {
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
            yield* deliver(resumed, requestId, method, resumes + 1)
          })

        /**
         * `described`: `message` is what the client said the frame holds, not the frame parsed. A
         * header is read from it while the value is what the body carries (a string, or nothing);
         * any other value (a `URL` as `uri`, a `Date` argument) is read from the frame itself, as
         * its JSON text.
         */
        const post = (frame: string, message: Message, method: string | undefined, described: boolean) => {
          let parsed: Readonly<Record<string, unknown>> | undefined
          const inFrame = () => parsed ??= record(record(JSON.parse(frame))["params"])
          const given = record(message["params"])
          const exact = (value: unknown) => value === undefined || typeof value === "string"
          const meta = given["_meta"]
          const bodyVersion = record(described && !(Predicate.isObject(meta) && exact(meta[ProtocolVersionKey])) ? inFrame()["_meta"] : meta)[ProtocolVersionKey]
          const headers: Record<string, string> = {
            ...common(),
            accept: "application/json, text/event-stream",
            ...(typeof bodyVersion === "string" ? { "mcp-protocol-version": bodyVersion } : {}),
            ...(method === undefined ? {} : { "mcp-method": method })
          }
          // the method table says which param is `Mcp-Name` and whether a tool's parameters are mirrored
          const entry = method === undefined ? undefined : Methods.findRequest(method)
          const params = described && entry?.nameParam !== undefined && !exact(given[entry.nameParam]) ? inFrame() : given
          const name = entry === undefined ? undefined : Method.nameOf(entry, params)
          if (name !== undefined) headers["mcp-name"] = headerValue(name)
          const mirrored = entry?.mirrorsArguments === true && name !== undefined ? mirrors.get(name) : undefined
          if (mirrored !== undefined && mirrored.length > 0) {
            // mirrored values as the body carries them: an argument given as a Date, say, is its JSON text there
            const args = record((described ? inFrame() : params)["arguments"])
            for (const mirror of mirrored) {
              const value = paramHeader(HeaderParams.valueAt(args, mirror.path))
              if (value !== undefined) headers[mirror.header] = value
            }
          }
          const request = HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(frame, "application/json")
          )
          const what = method === undefined ? "" : ` (${method})`
          return Effect.mapError(http.execute(request), (error) => {
            const code = codeOf(error)
            const hint = code === undefined ? undefined : hints[code]
            return new TransportError({
              reason: "Http",
              message: `POST ${url.href}${what} failed: ${code ?? error.message}${hint === undefined ? "" : ` (${hint})`}`
            })
          })
        }

        /**
         * The response's status: 2xx goes on; an error status whose body is the JSON-RPC answer to
         * the request is that answer; any other fails the request with the status and the body's
         * first line.
         */
        const admit = (
          response: HttpClientResponse.HttpClientResponse,
          requestId: unknown,
          method: string | undefined
        ): Effect.Effect<boolean, TransportError> =>
          Effect.gen(function*() {
            if (response.status >= 200 && response.status < 300) return true
            const body = yield* Effect.orElseSucceed(text(response, method), () => "")
            const answer = jsonRpc(body)
            // the JSON-RPC answer to the request, or an error whose id is null (the server could not read
            // the request's id, as the official SDK's stateless set-up answers server/discover): that answer
            if (answer !== undefined && requestId !== undefined && (answer["id"] === requestId || (answer["id"] === null && "error" in answer))) {
              hand(body, requestId)
              return false
            }
            const error = record(answer?.["error"])
            const said = typeof error["message"] === "string" ? `${error["code"]} ${error["message"]}` : firstLine(body)
            const hint = hints[String(response.status)]
            return yield* new TransportError({
              reason: "Http",
              status: response.status,
              message: `POST ${url.href}${method === undefined ? "" : ` (${method})`} answered HTTP ${response.status}${said === "" ? "" : `: ${said}`}` +
                (hint === undefined ? "" : ` (${hint})`)
            })
          })

        const write = (frame: string, sent?: Sent): Effect.Effect<void, TransportError> =>
          Effect.suspend(() => {
            // what the client just encoded, as it said; a frame without that (a response, a refusal) is read
            const message: Message = sent === undefined ? record(JSON.parse(frame)) : { method: sent.method, id: sent.id, params: sent.params }
            const method = typeof message["method"] === "string" ? message["method"] : undefined
            const requestId = method !== undefined && (typeof message["id"] === "string" || typeof message["id"] === "number") ? message["id"] : undefined
            if (requestId === undefined) {
              // A notification or a response: the answer is 202, or (rarely) a message to hand over.
              return Effect.scoped(Effect.gen(function*() {
                const response = yield* post(frame, message, method, sent !== undefined)
                if (response.status === 202) return
                if (yield* admit(response, undefined, method)) yield* deliver(response, undefined, method)
              }))
            }
            // A request: the write is done once the headers say the answer is coming; the body is
            // read by a fiber of its own, so the answer reaches the client the moment it arrives,
            // whatever the stream does after, until the client stops waiting for it (`settled`).
            const admitted = Deferred.makeUnsafe<void, TransportError>()
            const key = String(requestId)
            const exchange = Effect.scoped(Effect.gen(function*() {
              const response = yield* post(frame, message, method, sent !== undefined)
              const given = response.headers["mcp-session-id"]
              if (given !== undefined && method === Methods.Initialize.name) session = given
              const goOn = yield* admit(response, requestId, method)
              Deferred.doneUnsafe(admitted, Exit.void)
              if (goOn && response.status !== 202) yield* deliver(response, requestId, method)
            })).pipe(
              Effect.catch((error: TransportError) =>
                Effect.sync(() => {
                  if (!Deferred.doneUnsafe(admitted, Exit.fail(error))) failRequest(requestId, error)
                })
              )
            )
            return Effect.andThen(FiberMap.run(bodies, key, exchange), Deferred.await(admitted))
          })

        /** The initialize era's stream of the session's own messages (405 when the server has none). */
        const listen = Effect.gen(function*() {
          const response = yield* http.execute(
            HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders({ ...common(), accept: "text/event-stream" }))
          )
          if (response.status === 200) yield* deliver(response, undefined, undefined)
        }).pipe(Effect.scoped, Effect.ignore)

        const scope = yield* Effect.scope
        const closeMillis = Duration.toMillis(Duration.fromInputUnsafe(options.closeTimeout ?? "2 seconds"))
        yield* Effect.addFinalizer(() =>
          session === undefined
            ? Effect.void
            : http.execute(HttpClientRequest.delete(url).pipe(HttpClientRequest.setHeaders(common()))).pipe(
              Effect.scoped,
              // closing never waits unbounded for a server that does not answer the DELETE
              Effect.timeout(closeMillis),
              Effect.ignore
            )
        )
        return {
          write,
          closed: Effect.never,
          label: url.href,
          settled: (requestId) => Effect.runFork(FiberMap.remove(bodies, requestId)),
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
