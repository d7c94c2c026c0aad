/**
 * Client input that used to turn into 500s and ERROR logs, over the everything server on a real
 * listener: refused with the client's error (-32602 with the limit in `data`) before the handler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"
import { errorOf, expectValid, meta, post } from "../../packages/http/test/support/Raw.ts"
import { start } from "../../packages/http/test/support/TestServer.ts"

type Server = Awaited<ReturnType<typeof start>>

const call = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, ...extra, _meta: meta({ "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } }) }
})

describe("oversize input responses", () => {
  let server: Server
  beforeAll(async () => {
    server = await start({}, ServerLayer)
  })
  afterAll(() => server.close())

  it("a 20 KB elicitation answer is -32602 with the limit in data, before the handler, not a 500", async () => {
    const first = await post(server.url, call(1, "test_input_required_result_multi_round"))
    const result = first.messages[0]!["result"] as { resultType: string; requestState: string }
    expect(result.resultType).toBe("input_required")
    const answer = { step1: { action: "accept", content: { name: "x".repeat(20_000) } } }
    const retry = await post(server.url, call(2, "test_input_required_result_multi_round", { inputResponses: answer, requestState: result.requestState }))
    expect(retry.status).toBe(400)
    expect(errorOf(retry)).toMatchObject({ code: -32602, data: { field: "inputResponses", limit: 8192 } })
    expectValid(retry, "tools/call")
    // Under the limit the same round goes on to its second question.
    const small = { step1: { action: "accept", content: { name: "Ada" } } }
    const next = await post(server.url, call(3, "test_input_required_result_multi_round", { inputResponses: small, requestState: result.requestState }))
    expect(next.messages[0]!["result"]).toMatchObject({ resultType: "input_required", inputRequests: { step2: {} } })
  })
})
