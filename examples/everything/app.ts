/**
 * The everything server's MCP App (`io.modelcontextprotocol/ui`): a calculator view.
 *
 * - `ui://everything/calculator.html`: the view, one HTML document with its script inline; it
 *   talks to the host with JSON-RPC over `postMessage` by hand (`ui/initialize`, then
 *   `ui/notifications/initialized`), shows the result of the tool call that opened it
 *   (`ui/notifications/tool-result`), and adds two numbers of its own through the host
 *   (`tools/call` of `app_calculator_add`).
 * - `app_calculator` (model and app): adds `a` and `b`; a host that renders views gets
 *   `structuredContent` for the view, any other the sum as text only.
 * - `app_calculator_add` (app only): what the view's button calls; left out of `tools/list` for
 *   hosts without views.
 *
 * Try it by hand with a host that renders MCP Apps (the ext-apps `basic-host`, or any host in
 * https://modelcontextprotocol.io/clients) pointed at `npm start`.
 */
import { AppResource, Apps, AppTool } from "@snodo/apps"
import * as Content from "@snodo/core/Content"
import * as Tool from "@snodo/core/Tool"
import * as ToolResult from "@snodo/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The view's HTML: no dependency, no network (the host's default CSP is enough). */
export const calculatorHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Calculator</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 12px; color: #1f2328; }
  input { width: 5em; }
  output { display: block; min-height: 1.4em; font-weight: 600; }
</style>
</head>
<body>
<p id="status">Connecting to the host…</p>
<output id="opened"></output>
<p>
  <input id="a" type="number" value="20" aria-label="a"> +
  <input id="b" type="number" value="22" aria-label="b">
  <button id="add" type="button" disabled>Add</button>
</p>
<output id="sum"></output>
<script>
  const pending = new Map()
  let nextId = 1
  const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*")
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++
    pending.set(id, { resolve, reject })
    send({ id, method, params })
  })
  const describe = (result) => {
    if (result.isError) return "Error: " + result.content.map((block) => block.text).join(" ")
    const sum = result.structuredContent
    return sum ? sum.a + " + " + sum.b + " = " + sum.sum : result.content.map((block) => block.text).join(" ")
  }
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return
    const message = event.data
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return
    if (message.method === undefined) {
      const waiting = pending.get(message.id)
      pending.delete(message.id)
      if (message.error) waiting?.reject(new Error(message.error.message))
      else waiting?.resolve(message.result)
    } else if (message.method === "ui/notifications/tool-result") {
      document.getElementById("opened").textContent = describe(message.params)
    } else if (message.id !== undefined) {
      // ping, ui/resource-teardown: nothing to keep, nothing to clean up
      send({ id: message.id, result: {} })
    }
  })
  // A button, not a form: hosts sandbox views without allow-forms.
  document.getElementById("add").addEventListener("click", async () => {
    const output = document.getElementById("sum")
    const a = Number(document.getElementById("a").value)
    const b = Number(document.getElementById("b").value)
    try {
      output.textContent = describe(await request("tools/call", { name: "app_calculator_add", arguments: { a, b } }))
    } catch (error) {
      output.textContent = "Error: " + error.message
    }
  })
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "snodo-calculator", version: "0.1.0" },
    appCapabilities: {}
  }).then((initialized) => {
    send({ method: "ui/notifications/initialized", params: {} })
    document.getElementById("status").textContent = "Connected to " + (initialized.hostInfo?.name ?? "the host")
    document.getElementById("add").disabled = false
  }, (error) => {
    document.getElementById("status").textContent = "Error: " + error.message
  })
</script>
</body>
</html>
`

/** The view. */
export const calculatorView = AppResource.make({
  uri: "ui://everything/calculator.html",
  name: "calculator-view",
  title: "Calculator",
  description: "The view of app_calculator: the sum it opened with, and a form that adds through the host",
  prefersBorder: true
}, calculatorHtml)

const Operands = Schema.Struct({
  a: Schema.Finite.annotate({ description: "The first number" }),
  b: Schema.Finite.annotate({ description: "The second number" })
})

/** The sum, with `structuredContent` for a host that renders the view, as text for any other. */
const sum = ({ a, b }: typeof Operands.Type) =>
  Effect.map(Apps.supported, (views) =>
    views
      ? ToolResult.content([Content.text(`${a} + ${b} = ${a + b}`)], { structuredContent: { a, b, sum: a + b } })
      : `${a} + ${b} = ${a + b}`)

/** The model's tool: adds, and opens the calculator view in a host that renders apps. */
export const calculator = AppTool.make(
  Tool.make("app_calculator", {
    title: "Calculator",
    description: "Adds two numbers; a host that renders MCP Apps shows a calculator",
    input: Operands
  }, sum),
  { view: calculatorView }
)

/** The view's tool: what its Add button calls through the host. */
export const calculatorAdd = AppTool.make(
  Tool.make("app_calculator_add", {
    description: "Adds two numbers for the calculator view",
    input: Operands
  }, sum),
  { view: calculatorView, visibility: ["app"] }
)

/** The app's components, in the order the server lists them. */
export const components = [calculatorView, calculator, calculatorAdd] as const

/** The extension, as the everything server adds it. */
export const extension = Apps.extension()
