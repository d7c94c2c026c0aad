/**
 * The sandbox proxy of the minimal MCP Apps host (test/apps/Browser.test.ts), as the spec asks of
 * a web host: a page on another origin than the host's (`localhost` where the host is
 * `127.0.0.1`), in an iframe with `allow-scripts allow-same-origin`. It tells the host it is ready
 * (`ui/notifications/sandbox-proxy-ready`), loads the view's HTML it receives
 * (`ui/notifications/sandbox-resource-ready`) into an inner iframe (`allow-scripts` only) under the
 * Content Security Policy built from the view's `csp`, and passes every other message between the
 * host and the view unchanged.
 */
const hostOrigin = new URLSearchParams(location.search).get("host")

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

const view = document.createElement("iframe")
view.setAttribute("sandbox", "allow-scripts")
view.title = "view"
document.body.append(view)

window.addEventListener("message", (event) => {
  const message = event.data
  if (event.source === window.parent && event.origin === hostOrigin) {
    if (message?.method === "ui/notifications/sandbox-resource-ready") {
      const policy = `<meta http-equiv="Content-Security-Policy" content="${policyOf(message.params.csp)}">`
      view.srcdoc = message.params.html.replace(/<head[^>]*>/i, (head) => `${head}${policy}`)
    } else {
      view.contentWindow.postMessage(message, "*")
    }
  } else if (event.source === view.contentWindow) {
    window.parent.postMessage(message, hostOrigin)
  }
})

window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin)
