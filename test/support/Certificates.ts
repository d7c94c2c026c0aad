/**
 * A certificate authority and a server certificate for `localhost` / `127.0.0.1`, made with the
 * `openssl` CLI in a temporary directory at test time (no private key is committed), valid for a day.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

export interface TestCertificates {
  readonly dir: string
  /** The application CA's certificate (PEM), what clients are told to trust. */
  readonly ca: Buffer
  readonly caFile: string
  /** The server's key and certificate (PEM), signed by the CA. */
  readonly key: Buffer
  readonly cert: Buffer
  readonly keyFile: string
  readonly certFile: string
  readonly remove: () => void
}

const openssl = (dir: string, args: ReadonlyArray<string>) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] })

/** Makes a CA and a server certificate signed by it (`subject` names the server: CN and SAN). */
export const makeCertificates = (subject = "localhost"): TestCertificates => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "snodo-tls-"))
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
  openssl(dir, ["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=snodo test CA"])
  openssl(dir, ["req", ...ec, "-keyout", "key.pem", "-out", "server.csr", "-subj", `/CN=${subject}`])
  Fs.writeFileSync(Path.join(dir, "ext.cnf"), `subjectAltName=DNS:${subject},DNS:localhost,IP:127.0.0.1\n`)
  openssl(dir, ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "cert.pem", "-days", "1", "-extfile", "ext.cnf"])
  const file = (name: string) => Path.join(dir, name)
  return {
    dir,
    ca: Fs.readFileSync(file("ca.pem")),
    caFile: file("ca.pem"),
    key: Fs.readFileSync(file("key.pem")),
    cert: Fs.readFileSync(file("cert.pem")),
    keyFile: file("key.pem"),
    certFile: file("cert.pem"),
    remove: () => Fs.rmSync(dir, { recursive: true, force: true })
  }
}
