/**
 * The requests the bench sends, on the 2026-07-28 wire: every body carries the full `_meta`
 * envelope and every HTTP request the routing headers, so every server does its real admission
 * work. Also the checks a peer's answer must pass before it is measured.
 */

export const protocolVersion = "2026-07-28"

export const meta = {
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "snodo-bench", version: "0.1.0" }
} as const

export const echoText = "hello, bench"

export const echoBody = (id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: echoText }, _meta: meta } })

export const listBody = (id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } })

export const discoverBody = (id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: meta } })

const baseHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": protocolVersion
} as const

export const echoHeaders: Readonly<Record<string, string>> = { ...baseHeaders, "mcp-method": "tools/call", "mcp-name": "echo" }
export const listHeaders: Readonly<Record<string, string>> = { ...baseHeaders, "mcp-method": "tools/list" }
export const discoverHeaders: Readonly<Record<string, string>> = { ...baseHeaders, "mcp-method": "server/discover" }

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Reads a JSON-RPC frame from a JSON or SSE (last `data:` event) response body. */
export const frameOf = (contentType: string, text: string): unknown => {
  if (contentType.includes("text/event-stream")) {
    const events = text.split(/\r?\n\r?\n/).map((event) =>
      event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n")
    ).filter((data) => data !== "")
    const last = events.at(-1)
    return last === undefined ? undefined : JSON.parse(last) as unknown
  }
  return JSON.parse(text) as unknown
}

const resultOf = (frame: unknown, id: number | string): Readonly<Record<string, unknown>> | string => {
  if (!isRecord(frame)) return "response is not a JSON object"
  if (frame["jsonrpc"] !== "2.0") return "response lacks jsonrpc 2.0"
  if (frame["id"] !== id) return `response id ${JSON.stringify(frame["id"])} is not ${JSON.stringify(id)}`
  if (isRecord(frame["error"])) return `JSON-RPC error ${String(frame["error"]["code"])}: ${String(frame["error"]["message"])}`
  const result = frame["result"]
  if (!isRecord(result)) return "response has no result"
  if (result["resultType"] !== "complete") return `resultType is ${JSON.stringify(result["resultType"])}, not "complete"`
  return result
}

/** `undefined` when the frame is a correct echo result, else what is wrong. */
export const checkEcho = (frame: unknown, id: number | string = 1): string | undefined => {
  const result = resultOf(frame, id)
  if (typeof result === "string") return result
  if (result["isError"] === true) return `tool error: ${JSON.stringify(result["content"])}`
  const structured = result["structuredContent"]
  if (!isRecord(structured) || structured["text"] !== echoText) return "structuredContent.text does not echo the input"
  return undefined
}

/** `undefined` when the frame lists exactly `count` tools with no further page, else what is wrong. */
export const checkList = (frame: unknown, count: number, id: number | string = 1): string | undefined => {
  const result = resultOf(frame, id)
  if (typeof result === "string") return result
  const tools = result["tools"]
  if (!Array.isArray(tools)) return "result has no tools array"
  if (tools.length !== count) return `listed ${tools.length} tools, expected ${count}`
  if (result["nextCursor"] !== undefined) return "listing is paginated (nextCursor present)"
  return undefined
}

/** `undefined` when the frame is a `server/discover` result that offers 2026-07-28, else what is wrong. */
export const checkDiscover = (frame: unknown, id: number | string = 1): string | undefined => {
  const result = resultOf(frame, id)
  if (typeof result === "string") return result
  const versions = result["supportedVersions"]
  if (!Array.isArray(versions) || !versions.includes(protocolVersion)) return `supportedVersions ${JSON.stringify(versions)} lacks ${protocolVersion}`
  return undefined
}
