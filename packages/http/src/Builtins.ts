/**
 * Node's built-in modules, got where they are used (`process.getBuiltinModule`) rather than
 * imported. An `import` of a built-in links Node's ES module facade of it, which reads every one
 * of its exports: `node:http`'s include the WebSocket and fetch classes, whose getters load
 * `undici` (some 70 of Node's internal modules, ~60–100 ms of a cold start on a busy machine), and
 * `node:http2`, `node:https` and `node:tls` are loaded whole, though a cleartext HTTP/1.1 server
 * never uses them. Got here, each is loaded the first time it is needed, without its facade.
 *
 * @internal
 */
import type * as Crypto from "node:crypto"
import type * as Fs from "node:fs/promises"
import type * as Http from "node:http"
import type * as Http2 from "node:http2"
import type * as Https from "node:https"
import type * as Net from "node:net"
import type * as Tls from "node:tls"

/** `node:http`. */
export const http = (): typeof Http => process.getBuiltinModule("node:http")

/** `node:http2`. */
export const http2 = (): typeof Http2 => process.getBuiltinModule("node:http2")

/** `node:https`. */
export const https = (): typeof Https => process.getBuiltinModule("node:https")

/** `node:tls`. */
export const tls = (): typeof Tls => process.getBuiltinModule("node:tls")

/** `node:fs/promises`. */
export const fs = (): typeof Fs => process.getBuiltinModule("node:fs/promises")

let netModule: typeof Net | undefined
/** `node:net` (kept: its address checks run per request). */
export const net = (): typeof Net => netModule ??= process.getBuiltinModule("node:net")

let cryptoModule: typeof Crypto | undefined
/** `node:crypto` (kept: session ids are drawn per session). */
export const crypto = (): typeof Crypto => cryptoModule ??= process.getBuiltinModule("node:crypto")
