/**
 * Records every message a server writes through an official-client transport, with the method
 * of the request each response answers, so tests can validate them against schema.json.
 */
import type { Transport } from "@modelcontextprotocol/client"
import { validateServerMessage } from "./OfficialSchema.ts"

export interface Recorded {
  readonly message: unknown
  readonly requestMethod: string | undefined
}

export interface WireRecorder {
  readonly messages: Array<Recorded>
  /** Every schema violation found so far, as readable strings. */
  readonly violations: () => ReadonlyArray<string>
}

const idOf = (message: unknown): string | undefined => {
  if (typeof message !== "object" || message === null || !("id" in message)) return undefined
  return JSON.stringify((message as { id: unknown }).id)
}

/**
 * Observes a transport: call before `client.connect(transport)`, so both directions are seen.
 */
export const record = (transport: Transport): WireRecorder => {
  const methods = new Map<string, string>()
  const messages: Array<Recorded> = []
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    const id = idOf(message)
    if (id !== undefined && "method" in message) methods.set(id, message.method)
    return send(message, options)
  }
  const start = transport.start.bind(transport)
  transport.start = async () => {
    const onmessage = transport.onmessage
    transport.onmessage = (message, extra) => {
      const id = idOf(message)
      messages.push({ message, requestMethod: id === undefined ? undefined : methods.get(id) })
      onmessage?.(message, extra)
    }
    await start()
  }
  return {
    messages,
    violations: () =>
      messages.flatMap(({ message, requestMethod }) =>
        validateServerMessage(message, requestMethod === undefined ? {} : { requestMethod }).map(
          (error) => `${JSON.stringify(message).slice(0, 200)}: ${error}`
        )
      )
  }
}
