/**
 * A private PostgreSQL cluster for one test: `initdb` in a temporary directory, served on a free
 * port of loopback, stopped and started by the test (an outage it controls), and deleted
 * afterwards. The binaries come from `/usr/lib/postgresql/<version>/bin`; PostgreSQL refuses to
 * run as root, so under root the cluster runs as the `postgres` user (`runuser`).
 */
import { execFileSync } from "node:child_process"
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./FreePort.ts"

export interface PrivatePostgres {
  readonly port: number
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** Stops the server at once (`pg_ctl stop -m immediate`: no goodbye to the clients, as in a crash). */
  readonly stop: () => void
  /** Starts it again on the same port and data, and waits until it accepts connections. */
  readonly start: () => void
  /** Stops it and deletes its data. */
  readonly destroy: () => void
}

const binaries = (): string => {
  const root = "/usr/lib/postgresql"
  const version = readdirSync(root).toSorted((a, b) => Number(b) - Number(a))[0]
  if (version === undefined) throw new Error("no PostgreSQL under /usr/lib/postgresql")
  return join(root, version, "bin")
}

/** A port free on loopback right now. */
export { freePort }

/** Creates the cluster and starts it. */
export const create = async (): Promise<PrivatePostgres> => {
  const bin = binaries()
  const dir = mkdtempSync(join(tmpdir(), "snodo-pg-"))
  const data = join(dir, "data")
  const root = process.getuid?.() === 0
  if (root) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim())
    chownSync(dir, id("-u"), id("-g"))
  }
  const run = (tool: string, args: ReadonlyArray<string>) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, tool), ...args], { stdio: "pipe", timeout: 60_000 })
      : execFileSync(join(bin, tool), args, { stdio: "pipe", timeout: 60_000 })
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`
  const start = () => void run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"])
  const stop = () => void run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
  start()
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    destroy: () => {
      try {
        stop()
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
