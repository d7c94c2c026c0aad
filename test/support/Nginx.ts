/**
 * Debian's nginx, started by a test on a loopback port with its own prefix and configuration in a
 * temporary directory (not the system service): TLS and HTTP/2 towards clients, HTTP/1.1 to the
 * upstream MCP server, no buffering (SSE streams pass as they come). The configuration is the one
 * docs/http.md shows.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

export const installCommand = "apt-get update && apt-get install -y nginx-light"

/** The path of nginx, or an error that says how to install it. */
export const nginxBinary = (): string => {
  for (const candidate of ["/usr/sbin/nginx", "/usr/bin/nginx"]) if (Fs.existsSync(candidate)) return candidate
  try {
    return execFileSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" }).trim()
  } catch {
    throw new Error(`nginx is not installed: this test starts Debian's nginx in front of the server. Install it with: ${installCommand}`)
  }
}

/** The `location` block docs/http.md recommends for an MCP endpoint behind nginx. */
export const mcpLocation = (upstream: string) => `
    location /mcp {
      proxy_pass http://${upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }`

export interface Nginx {
  readonly port: number
  readonly accessLog: () => string
  readonly errorLog: () => string
  readonly stop: () => Promise<void>
}

/** Starts nginx on `127.0.0.1:port` with TLS (`cert`, `key` files) in front of `upstreamPort`. */
export const startNginx = async (options: {
  readonly dir: string
  readonly port: number
  readonly upstreamPort: number
  readonly certFile: string
  readonly keyFile: string
}): Promise<Nginx> => {
  const binary = nginxBinary()
  const dir = Path.join(options.dir, "nginx")
  Fs.mkdirSync(Path.join(dir, "logs"), { recursive: true })
  // Workers run as an unprivileged user when the master is root: they write temp files here.
  Fs.chmodSync(options.dir, 0o755)
  Fs.chmodSync(dir, 0o777)
  const file = (name: string) => Path.join(dir, name)
  Fs.writeFileSync(
    file("nginx.conf"),
    `
worker_processes 1;
pid ${file("nginx.pid")};
error_log ${file("logs/error.log")} info;
events { worker_connections 2048; }
http {
  access_log ${file("logs/access.log")};
  client_body_temp_path ${file("client_body")};
  proxy_temp_path ${file("proxy")};
  fastcgi_temp_path ${file("fastcgi")};
  uwsgi_temp_path ${file("uwsgi")};
  scgi_temp_path ${file("scgi")};
  upstream mcp_upstream {
    server 127.0.0.1:${options.upstreamPort};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${options.port} ssl http2;
    server_name localhost;
    ssl_certificate ${options.certFile};
    ssl_certificate_key ${options.keyFile};
${mcpLocation("mcp_upstream")}
  }
}
`
  )
  const child: ChildProcess = spawn(binary, ["-p", dir, "-e", file("logs/error.log"), "-c", file("nginx.conf"), "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const read = (name: string) => (Fs.existsSync(file(name)) ? Fs.readFileSync(file(name), "utf8") : "")
  // Up once the master wrote its pid file and the port answers TLS.
  const deadline = Date.now() + 15_000
  while (!Fs.existsSync(file("nginx.pid"))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nginx did not start (exit ${child.exitCode}): ${stderr}${read("logs/error.log")}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    port: options.port,
    accessLog: () => read("logs/access.log"),
    errorLog: () => read("logs/error.log"),
    stop: () => {
      if (child.exitCode === null) child.kill("SIGQUIT")
      return exited
    }
  }
}
