/** The event stream of Effect's HTTP server: events in order, `written` once taken, and the bound past which the stream ends. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { HttpBody } from "effect/http"
import * as EffectResponse from "../src/EffectResponse.ts"

const decoder = new TextDecoder()

const bodyOf = (response: { readonly body: HttpBody.HttpBody }): Stream.Stream<Uint8Array> => {
  const body = response.body
  if (body._tag !== "Stream") throw new Error(`expected a stream body, got ${body._tag}`)
  return body.stream as Stream.Stream<Uint8Array>
}

describe("EffectResponse", () => {
  it.effect("streams the events in order, each written once the stream takes it, and ends with the exchange", () =>
    Effect.gen(function*() {
      const { delivery, response } = yield* EffectResponse.make(true)
      const written: Array<number> = []
      delivery.open()
      for (let i = 0; i < 3; i++) delivery.event(`data: ${i}\n\n`, () => void written.push(i))
      delivery.event("data: last\n\n", undefined)
      expect(written).toEqual([])
      delivery.end()
      const chunks = yield* Stream.runCollect(bodyOf(yield* response))
      expect(chunks.map((chunk) => decoder.decode(chunk))).toEqual(["data: 0\n\n", "data: 1\n\n", "data: 2\n\n", "data: last\n\n"])
      expect(written).toEqual([0, 1, 2])
    }))

  it.effect(`past ${EffectResponse.maxEvents} events waiting the stream ends (a client reading too slowly)`, () =>
    Effect.gen(function*() {
      const { delivery, response } = yield* EffectResponse.make(true)
      delivery.open()
      for (let i = 0; i <= EffectResponse.maxEvents; i++) delivery.event(`data: ${i}\n\n`, undefined)
      // No end(): the overflow alone ends the stream, what waited discarded.
      const chunks = yield* Stream.runCollect(bodyOf(yield* response))
      expect(chunks.length).toBe(0)
    }))
})
