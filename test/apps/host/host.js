/**
 * A minimal MCP Apps host, for the browser (bundled by test/apps/Browser.test.ts with esbuild; plain
 * JavaScript because the repository type-checks for Node, without the DOM library).
 *
 * It connects the official client (`@modelcontextprotocol/client`, 2026-07-28, declaring
 * `io.modelcontextprotocol/ui`) to the server at `/mcp` on its own origin, lists the tools as a
 * model would see them (app-only ones left out, as the spec asks of hosts), reads the `ui://` view
 * of `app_calculator`, renders it in a sandboxed iframe (scripts only: an opaque origin apart from
 * this page) under the Content Security Policy its `_meta.ui.csp` allows, and connects the
 * ext-apps host bridge (`AppBridge`) to it, which forwards the view's `tools/call` to the server.
 * Once the view is initialized it calls `app_calculator` and sends the view the input and the
 * result. Progress and failures are written to `#log`; `#model-tools` lists the model's tools.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import {
  AppBridge,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  PostMessageTransport,
  RESOURCE_MIME_TYPE
} from "@modelcontextprotocol/ext-apps/app-bridge"

const hostInfo = { name: "snodo-test-host", version: "0.1.0" }
const log = (line) => {
  document.getElementById("log").textContent += `${line}\n`
}

/** The view's policy: the spec's restrictive default, opened only to the origins `csp` declares. */
const policyOf = (csp = {}) => {
  const origins = (list) => (list ?? []).join(" ")
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${origins(csp.resourceDomains)}`,
    `style-src 'unsafe-inline' ${origins(csp.resourceDomains)}`,
    `img-src data: ${origins(csp.resourceDomains)}`,
    `font-src ${origins(csp.resourceDomains)}`,
    `media-src data: ${origins(csp.resourceDomains)}`,
    `connect-src ${origins(csp.connectDomains) || "'none'"}`,
    `frame-src ${origins(csp.frameDomains) || "'none'"}`,
    `base-uri ${origins(csp.baseUriDomains) || "'self'"}`,
    "object-src 'none'"
  ].join("; ")
}

const main = async () => {
  const client = new Client(hostInfo, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)))
  log(`connected: ${client.getNegotiatedProtocolVersion()}`)

  const { tools } = await client.listTools()
  document.getElementById("model-tools").textContent = tools.filter((tool) => !isToolVisibilityAppOnly(tool)).map((tool) => tool.name).join(",")
  const tool = tools.find((candidate) => candidate.name === "app_calculator")
  const uri = getToolUiResourceUri(tool)
  const { contents } = await client.readResource({ uri })
  const view = contents.find((item) => item.uri === uri)
  if (view?.mimeType !== RESOURCE_MIME_TYPE || typeof view.text !== "string") throw new Error(`${uri} is not an MCP App view`)
  log(`read ${uri}`)

  const iframe = document.createElement("iframe")
  iframe.setAttribute("sandbox", "allow-scripts")
  iframe.title = "app"
  document.getElementById("apps").append(iframe)

  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, serverResources: {}, logging: {} })
  const args = { a: 1, b: 2 }
  bridge.oninitialized = async () => {
    log("view initialized")
    await bridge.sendToolInput({ arguments: args })
    await bridge.sendToolResult(await client.callTool({ name: tool.name, arguments: args }))
    log("tool result sent")
  }
  // Connected before the view loads, so its first message (ui/initialize) is heard.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow))
  const policy = `<meta http-equiv="Content-Security-Policy" content="${policyOf(view._meta?.ui?.csp)}">`
  iframe.srcdoc = view.text.replace(/<head[^>]*>/i, (head) => `${head}${policy}`)
}

main().catch((error) => log(`error: ${error?.stack ?? error}`))
