/**
 * MCP Apps end to end in a real browser. The everything server runs on a real listener (port 0);
 * a page server of this test, also on loopback, serves a minimal host page and its script
 * (`host/host.js`, bundled here with esbuild: the official client and the ext-apps host bridge),
 * the sandbox proxy (`host/sandbox.js`, reached as `localhost`: another origin than the host's
 * `127.0.0.1`) and passes `/mcp` through to the everything server unchanged, so the page reaches
 * it on its own origin (the server answers no CORS preflight). Headless Chromium (Debian's
 * `chromium`, driven by playwright-core) loads the page; the host lists the tools, reads the
 * `ui://` view of `app_calculator`, renders it through `AppBridge` and the sandbox proxy in a
 * sandboxed iframe, calls the tool and sends the view its result; the view then adds two numbers of its own through the bridge
 * (`app_calculator_add`, an app-only tool). The test reads both sums from the view.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import * as esbuild from "esbuild"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, request as forward, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"

const executablePath = "/usr/bin/chromium"
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

const hostPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>snodo test host</title></head>
<body>
<p>Model tools: <span id="model-tools"></span></p>
<div id="apps"></div>
<pre id="log"></pre>
<script type="module" src="/host.js"></script>
</body>
</html>
`

const sandboxPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>sandbox</title><style>iframe { border: 0; width: 100%; height: 100%; }</style></head>
<body>
<script src="/sandbox.js"></script>
</body>
</html>
`
const sandboxJs = readFileSync(new URL("host/sandbox.js", import.meta.url), "utf8")

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown> | undefined
let pages: Server | undefined
let context: BrowserContext | undefined
let profile: string | undefined
let origin: string

/** The host script for the browser: one ES module, every dependency inside. */
const bundleHost = async (): Promise<string> => {
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL("host/host.js", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    write: false,
    logLevel: "silent"
  })
  const [output] = built.outputFiles
  if (output === undefined) throw new Error("esbuild wrote nothing")
  return output.text
}

/** Serves the page and its script; passes `/mcp` to the everything server as it came. */
const servePages = (hostJs: string, mcpPort: number): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((incoming, outgoing) => {
      if (incoming.url === "/") {
        outgoing.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostPage)
      } else if (incoming.url === "/host.js") {
        outgoing.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(hostJs)
      } else if (incoming.url?.startsWith("/sandbox.html?") === true) {
        outgoing.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(sandboxPage)
      } else if (incoming.url === "/sandbox.js") {
        outgoing.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(sandboxJs)
      } else if (incoming.url?.startsWith("/mcp") === true) {
        const upstream = forward({
          host: "127.0.0.1",
          port: mcpPort,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: `127.0.0.1:${mcpPort}` }
        }, (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
        })
        upstream.on("error", () => outgoing.destroy())
        incoming.pipe(upstream)
      } else {
        outgoing.writeHead(incoming.url === "/favicon.ico" ? 204 : 404).end()
      }
    })
    server.listen(0, "127.0.0.1", () => resolve(server))
  })

beforeAll(async () => {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium is missing (${executablePath}): install Debian's chromium as root with \`apt-get update && apt-get install -y chromium\``)
  }
  const [hostJs] = await Promise.all([
    bundleHost(),
    (async () => {
      runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(ServerLayer)))
    })()
  ])
  const server = await runtime!.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  pages = await servePages(hostJs, server.address.port)
  origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  profile = mkdtempSync(join(tmpdir(), "snodo-chromium-"))
  context = await chromium.launchPersistentContext(profile, { executablePath, args: chromiumArgs, headless: true })
})

afterAll(async () => {
  await context?.close()
  await new Promise<void>((resolve) => pages === undefined ? resolve() : pages.close(() => resolve()))
  await runtime?.dispose()
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true })
})

describe("MCP Apps in Chromium", () => {
  it("renders the everything server's ui:// view through AppBridge, and the view calls a tool through the host", async () => {
    const page = await context!.newPage()
    const errors: Array<string> = []
    const consoleLines: Array<string> = []
    page.on("pageerror", (error) => errors.push(error.message))
    page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`))
    await page.goto(`${origin}/`)
    const log = page.locator("#log")
    const view = page.frameLocator("#apps iframe").frameLocator("iframe")
    try {
      // the result of the call that opened the view, sent by the host
      await expect.poll(() => view.locator("#opened").textContent(), { timeout: 10_000 }).toBe("1 + 2 = 3")
      await expect.poll(() => view.locator("#status").textContent()).toBe("Connected to snodo-test-host")
      // the view's own call, through the bridge, of a tool only views may call
      await view.locator("#add").click()
      await expect.poll(() => view.locator("#sum").textContent(), { timeout: 10_000 }).toBe("20 + 22 = 42")
    } catch (error) {
      throw new Error(`${String(error)}\nhost log:\n${await log.textContent()}\npage errors: ${errors.join("; ")}\nconsole:\n${consoleLines.join("\n")}`, { cause: error })
    }
    expect(await log.textContent()).toContain("connected: 2026-07-28")
    // the host keeps the app-only tool from its model, as the spec asks of it
    const modelTools = String(await page.locator("#model-tools").textContent()).split(",")
    expect(modelTools).toContain("app_calculator")
    expect(modelTools).not.toContain("app_calculator_add")
    // the view is sandboxed as the spec asks of a web host: a proxy on another origin, the view inside it with scripts only
    expect(await page.locator("#apps iframe").getAttribute("sandbox")).toBe("allow-scripts allow-same-origin")
    expect(new URL(String(await page.locator("#apps iframe").getAttribute("src"))).origin).not.toBe(origin)
    expect(await page.frameLocator("#apps iframe").locator("iframe").getAttribute("sandbox")).toBe("allow-scripts")
    expect(await log.textContent()).toContain("sandbox ready")
    expect(errors).toEqual([])
    await page.close()
  })
})
