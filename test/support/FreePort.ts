/**
 * A loopback port the OS says is free now, for a test that must know a server's URL before the
 * server binds it (an OAuth resource URI, a database cluster's port). Another process may take it
 * in between; the tests that use it bind at once.
 */
import { createServer } from "node:net"

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
    })
  })
