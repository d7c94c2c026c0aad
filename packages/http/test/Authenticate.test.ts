/**
 * NodeServe's `authenticate` hook, with a small authenticator of the test's own (an API key): it
 * runs before the body (a refusal is its own answer, and a refused caller's handler never runs),
 * an accepted caller runs as its principal, a grant's `answer` replaces an error outcome, a grant
 * that lapses ends the request, a hook that dies is a 500 that names nothing, and a client that
 * goes away while it is verified releases its request (the hook is interrupted).
 */
import { Principal } from "@snodo/core/Principal"
import { Effect } from "effect"
import * as Http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as Authentication from "@snodo/http/Authentication"
import * as Replies from "@snodo/http/Replies"
import { errorOf, eventually, headersFor, post, request } from "./support/Raw.ts"
import { start, stats } from "./support/TestServer.ts"

let entered = 0
let interrupted = 0
const lapse: Authentication.Lapse = { status: 401, headers: { "www-authenticate": "ApiKey" }, error: { code: -32001, message: "Key expired" } }

const authenticator: Authentication.Authenticator = {
  authenticate: (headers) => {
    const key = headers["x-api-key"]
    if (key === "hang") {
      entered++
      return Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted++)))
    }
    if (key === "die") return Effect.die(new Error("secret detail"))
    if (key !== "good" && key !== "brief") return Effect.fail(Replies.refuse(401, -32001, "Unauthorized", { "www-authenticate": "ApiKey" }))
    return Effect.succeed({
      principal: Principal.of({ id: `key-${key}`, claims: {} }),
      grant: {
        expiresAt: key === "brief" ? Date.now() + 300 : undefined,
        lapse,
        answer: (outcome) => outcome.code === -32001 ? Replies.json(outcome.frame, 429, { "retry-after": "7" }) : undefined
      }
    })
  }
}

let server: Awaited<ReturnType<typeof start>>
beforeAll(async () => {
  server = await start({ authenticate: authenticator, maxConcurrent: 1 })
})
afterAll(() => server.close())

const call = (name: string, args: Record<string, unknown>) => request("tools/call", { name, arguments: args })

describe("NodeServe's authenticate hook", () => {
  it("answers a refused caller with the hook's refusal, and never runs its handler", async () => {
    const before = stats.started
    const refused = await post(server.url, call("slow", { ms: 1 }), { "x-api-key": "wrong" })
    expect([refused.status, refused.headers["www-authenticate"], errorOf(refused).code]).toEqual([401, "ApiKey", -32001])
    expect(stats.started).toBe(before)
  })

  it("runs an accepted caller's request, and the grant answers the outcomes it recognizes", async () => {
    const echoed = await post(server.url, call("echo", { text: "hi" }), { "x-api-key": "good" })
    expect(echoed.status).toBe(200)
    const quota = await post(server.url, call("quota", {}), { "x-api-key": "good" })
    expect([quota.status, quota.headers["retry-after"], errorOf(quota)]).toEqual([429, "7", { code: -32001, message: "Quota exceeded" }])
  })

  it("ends a request whose grant lapses with the grant's answer", async () => {
    const body = call("slow", { ms: 10_000 })
    const lapsed = await post(server.url, body, { "x-api-key": "brief" })
    expect([lapsed.status, lapsed.headers["www-authenticate"]]).toEqual([401, "ApiKey"])
    expect(lapsed.messages[0]).toEqual({ jsonrpc: "2.0", id: body.id, error: { code: -32001, message: "Key expired" } })
  })

  it("answers a hook that dies with a 500 naming nothing", async () => {
    const failed = await post(server.url, request("tools/list"), { "x-api-key": "die" })
    expect([failed.status, errorOf(failed)]).toEqual([500, { code: -32603, message: "Internal error" }])
    expect(failed.text).not.toContain("secret")
  })

  it("releases a request whose client leaves while it is verified, and interrupts the hook", async () => {
    const body = request("tools/list")
    const leaving = Http.request(server.url, { method: "POST", headers: { ...headersFor(body), "x-api-key": "hang" }, agent: false })
    leaving.on("error", () => undefined)
    leaving.end(JSON.stringify(body))
    await eventually(() => entered === 1)
    leaving.destroy()
    await eventually(() => interrupted === 1)
    // maxConcurrent is 1: the next caller is not refused as busy.
    expect((await post(server.url, request("tools/list"), { "x-api-key": "good" })).status).toBe(200)
  })
})
