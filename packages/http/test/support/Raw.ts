/**
 * Raw HTTP for tests: `node:http` requests with full control over headers (repeated ones
 * included), body pacing and disconnects; responses read as bytes, with SSE events split out and
 * every JSON-RPC message checked against the official schema.
 */
import * as Http from "node:http"
import { expect } from "vitest"
import { validateServerMessage } from "../../../../test/support/OfficialSchema.ts"

export const protocolVersion = "2026-07-28"

export const meta = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
  ...extra
})

let nextId = 1

/** A JSON-RPC request body with valid `_meta`. */
export const request = (method: string, params: Record<string, unknown> = {}, metaExtra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: nextId++,
  method,
  params: { ...params, _meta: meta(metaExtra) }
})

/** The headers a conforming client sends for a body. */
export const headersFor = (body: Record<string, unknown>): Record<string, string> => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": protocolVersion
  }
  if (typeof body["method"] === "string") headers["mcp-method"] = body["method"]
  const params = body["params"] as Record<string, unknown> | undefined
  if (body["method"] === "tools/call" || body["method"] === "prompts/get") headers["mcp-name"] = String(params?.["name"])
  if (body["method"] === "resources/read") headers["mcp-name"] = String(params?.["uri"])
  return headers
}

export interface RawResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  /** The JSON-RPC messages: the body, or every SSE `data:` event. */
  readonly messages: ReadonlyArray<Record<string, unknown>>
}

const parseMessages = (contentType: string | undefined, text: string): Array<Record<string, unknown>> => {
  if (text === "") return []
  if (contentType?.startsWith("text/event-stream")) {
    return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
  }
  if (contentType?.startsWith("application/json")) return [JSON.parse(text)]
  return []
}

export interface SendOptions {
  readonly method?: string
  /** Raw header pairs (names may repeat); replaces the derived headers entirely when given. */
  readonly rawHeaders?: ReadonlyArray<readonly [string, string]>
  readonly headers?: Record<string, string | undefined>
  readonly agent?: Http.Agent
  readonly path?: string
}

/** Sends one request and reads the whole response. */
export const send = (url: string, body: string | Uint8Array | Record<string, unknown> | undefined, options: SendOptions = {}): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const bytes = body instanceof Uint8Array
    const text = body === undefined ? "" : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body)
    let headers: Http.OutgoingHttpHeaders | Array<string>
    if (options.rawHeaders !== undefined) {
      const pairs = options.rawHeaders.some(([name]) => name.toLowerCase() === "host")
        ? options.rawHeaders
        : [["Host", target.host] as const, ...options.rawHeaders]
      headers = pairs.flatMap(([name, value]) => [name, value])
    } else {
      const merged: Record<string, string> = typeof body === "object" && !bytes ? headersFor(body) : {
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      }
      for (const [name, value] of Object.entries(options.headers ?? {})) {
        if (value === undefined) delete merged[name.toLowerCase()]
        else merged[name.toLowerCase()] = value
      }
      headers = merged
    }
    const req = Http.request({
      host: target.hostname,
      port: target.port,
      path: options.path ?? target.pathname,
      method: options.method ?? "POST",
      headers,
      agent: options.agent ?? false,
      setHost: !(options.rawHeaders?.some(([name]) => name.toLowerCase() === "host") ?? false) &&
        options.headers?.["host"] === undefined
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const received = Buffer.concat(chunks).toString("utf8")
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: received,
          messages: parseMessages(res.headers["content-type"], received)
        })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    if (options.headers?.["host"] !== undefined) req.setHeader("host", options.headers["host"])
    req.end(text)
  })

/** Sends a conforming request for `body`. */
export const post = (url: string, body: Record<string, unknown>, headers?: Record<string, string | undefined>) =>
  send(url, body, headers === undefined ? {} : { headers })

/** Asserts every message validates against the official schema. */
export const expectValid = (response: RawResponse, requestMethod?: string): void => {
  for (const message of response.messages) {
    expect(validateServerMessage(message, requestMethod === undefined ? {} : { requestMethod })).toEqual([])
  }
}

/** The error object of a single-message response. */
export const errorOf = (response: RawResponse): { code: number; message: string; data?: unknown } =>
  response.messages[0]?.["error"] as { code: number; message: string; data?: unknown }

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` holds (or fails the test after `timeout`). */
export const eventually = async (check: () => boolean, timeout = 3000): Promise<void> => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > timeout) throw new Error("condition not reached in time")
    await sleep(10)
  }
}
