/**
 * Peer: the stdio floor. Splits stdin on newlines, `JSON.parse`s each line and answers it with a
 * canned result carrying its id (a `server/discover` gets a canned discover result, so the official
 * client's version probe passes). No MCP semantics.
 *
 *   npx node bench/peers/raw-stdio.ts
 */
const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "bench-raw", version: "0" } }
const discover = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  resultType: "complete",
  _meta: serverInfo
}

let buffered = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk: string) => {
  buffered += chunk
  let newline = buffered.indexOf("\n")
  let out = ""
  while (newline >= 0) {
    const line = buffered.slice(0, newline)
    buffered = buffered.slice(newline + 1)
    newline = buffered.indexOf("\n")
    if (line.trim() === "") continue
    let message: { id?: unknown; method?: unknown; params?: { arguments?: { text?: unknown } } }
    try {
      message = JSON.parse(line) as typeof message
    } catch {
      out += `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n`
      continue
    }
    if (message.id === undefined) continue // notification
    const text = message.params?.arguments?.text
    const result = message.method === "server/discover"
      ? discover
      : { content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text }, resultType: "complete", _meta: serverInfo }
    out += JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n"
  }
  if (out !== "") process.stdout.write(out)
})
process.stdin.on("end", () => process.exit(0))
