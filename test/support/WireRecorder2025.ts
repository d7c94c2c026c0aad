/**
 * Records every message a server writes to a v1 SDK client transport (`@modelcontextprotocol/sdk`,
 * the initialize era), with the method of the request each response answers, so tests can
 * validate them against the 2025-11-25 schema.json. Server-to-client requests are recorded too
 * (and validated as requests); the client's answers to them are not responses the server wrote.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { validateServerMessage2025 } from "./OfficialSchema2025.ts"

export interface Recorded {
  readonly message: unknown
  readonly requestMethod: string | undefined
}

export interface WireRecorder2025 {
  readonly messages: Array<Recorded>
  /** Every schema violation found so far, as readable strings. */
  readonly violations: () => ReadonlyArray<string>
}

const idOf = (message: unknown): string | undefined => {
  if (typeof message !== "object" || message === null || !("id" in message)) return undefined
  return JSON.stringify((message as { id: unknown }).id)
}

/** Observes a transport: call before `client.connect(transport)`, so both directions are seen. */
export const record = (transport: Transport): WireRecorder2025 => {
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
      const isRequest = "method" in message
      messages.push({ message, requestMethod: id === undefined || isRequest ? undefined : methods.get(id) })
      onmessage?.(message, extra)
    }
    await start()
  }
  return {
    messages,
    violations: () =>
      messages.flatMap(({ message, requestMethod }) =>
        validateServerMessage2025(message, requestMethod === undefined ? {} : { requestMethod }).map(
          (error) => `${JSON.stringify(message).slice(0, 200)}: ${error}`
        )
      )
  }
}
