/**
 * A minimal MCP Apps host, for the browser (bundled by test/apps/Browser.test.ts with esbuild; plain
 * JavaScript because the repository type-checks for Node, without the DOM library).
 *
 * It connects the official client (`@modelcontextprotocol/client`, 2026-07-28, declaring
 * `io.modelcontextprotocol/ui`) to the server at `/mcp` on its own origin, lists the tools as a
 * model would see them (app-only ones left out, as the spec asks of hosts), reads the `ui://` view
 * of `app_calculator`, and renders it as the spec asks of a web host: through a sandbox proxy on
 * another origin (`sandbox.js`), which loads the view into an inner iframe (scripts only) under
 * the Content Security Policy of its `_meta.ui.csp`. The ext-apps host bridge (`AppBridge`) talks
 * to the proxy, sends it the view's HTML when it is ready, and forwards the view's `tools/call` to
 * the server.
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

  // The sandbox proxy: another origin (localhost, where this page is 127.0.0.1), scripts and its own origin.
  const sandbox = new URL("/sandbox.html", location.href)
  sandbox.hostname = location.hostname === "localhost" ? "127.0.0.1" : "localhost"
  sandbox.searchParams.set("host", location.origin)
  const iframe = document.createElement("iframe")
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin")
  iframe.title = "app"
  document.getElementById("apps").append(iframe)

  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, serverResources: {}, logging: {} })
  const args = { a: 1, b: 2 }
  bridge.onsandboxready = () => {
    log("sandbox ready")
    void bridge.sendSandboxResourceReady({ html: view.text, csp: view._meta?.ui?.csp ?? {}, permissions: view._meta?.ui?.permissions ?? {} })
  }
  bridge.oninitialized = async () => {
    log("view initialized")
    await bridge.sendToolInput({ arguments: args })
    await bridge.sendToolResult(await client.callTool({ name: tool.name, arguments: args }))
    log("tool result sent")
  }
  // Connected before the proxy loads, so its first message (sandbox-proxy-ready) is heard.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow))
  iframe.src = sandbox.href
}

main().catch((error) => log(`error: ${error?.stack ?? error}`))
