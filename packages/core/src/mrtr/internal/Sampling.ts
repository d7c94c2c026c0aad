/**
 * Sampling and roots inputs: what a handler may ask for and what a client may answer.
 *
 * A sampling request is checked before it is sent: it matches `CreateMessageRequestParams`,
 * `maxTokens` is a positive integer, there is at least one message, no content array is empty,
 * tool results come alone in user messages, tool uses only in assistant messages and are answered
 * by the next message, tool names are unique, and `toolChoice` comes with `tools`. A request that
 * breaks a rule is the server's bug.
 *
 * A response is checked when it comes back: it matches `CreateMessageResult`, carries no tool
 * result, and uses tools only when the request offered them (and by one of their names). Roots
 * must be `file://` URIs. A failure names the rule and the path, never the value.
 *
 * @since 0.1.0
 */
import { Exit, Result, Schema, SchemaIssue } from "effect"
import type { SamplingMessageContentBlock } from "@snodo/protocol/wire/Content"
import { ListRootsResult, type Root } from "@snodo/protocol/wire/Roots"
import { CreateMessageRequestParams, CreateMessageResult } from "@snodo/protocol/wire/Sampling"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const firstPath = (issue: SchemaIssue.Issue): string => {
  const entry = formatter(issue).issues[0]
  const path = (entry?.path ?? []).map((segment) =>
    typeof segment === "object" && segment !== null && "key" in segment ? String(segment.key) : String(segment)
  )
  return path.length === 0 ? "(root)" : path.join(".")
}

/** A decoder made at its first use: a server that never samples or asks for roots never makes one. */
const decoder = <S extends Schema.Top>(schema: S) => {
  let decode: ((input: unknown) => Exit.Exit<S["Type"], Schema.SchemaError>) | undefined
  /** The decoded value, or the path of the first issue. */
  return (input: unknown): Result.Result<S["Type"], string> => {
    decode ??= Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"], unknown>)
    const exit = decode(input)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    return Result.fail(failure ? firstPath(failure.error.issue) : "(root)")
  }
}

const decodeRequest = decoder(CreateMessageRequestParams)
const decodeResult = decoder(CreateMessageResult)
const decodeRoots = decoder(ListRootsResult)

const blocksOf = (
  content: SamplingMessageContentBlock | ReadonlyArray<SamplingMessageContentBlock>
): ReadonlyArray<SamplingMessageContentBlock> => Array.isArray(content) ? content : [content as SamplingMessageContentBlock]

/**
 * Every rule a sampling request breaks (empty when it may be sent).
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkRequest = (params: unknown): ReadonlyArray<string> => {
  const decoded = decodeRequest(params)
  if (Result.isFailure(decoded)) return [`sampling request does not match CreateMessageRequestParams at ${decoded.failure}`]
  const request = decoded.success
  const problems: Array<string> = []
  if (!(request.maxTokens > 0)) problems.push("maxTokens must be a positive integer")
  if (request.messages.length === 0) problems.push("messages must not be empty")
  const toolNames = new Set<string>()
  for (const tool of request.tools ?? []) {
    if (toolNames.has(tool.name)) problems.push(`tool "${tool.name}" is offered twice`)
    toolNames.add(tool.name)
  }
  if (request.toolChoice !== undefined && request.tools === undefined) problems.push("toolChoice needs tools")
  request.messages.forEach((message, index) => {
    const blocks = blocksOf(message.content)
    if (blocks.length === 0) problems.push(`messages[${index}] has no content`)
    const results = blocks.filter((block) => block.type === "tool_result")
    if (results.length > 0 && results.length !== blocks.length) problems.push(`messages[${index}] mixes tool results with other content`)
    if (results.length > 0 && message.role !== "user") problems.push(`messages[${index}]: tool results belong to user messages`)
    const uses = blocks.flatMap((block) => block.type === "tool_use" ? [block.id] : [])
    if (uses.length > 0 && message.role !== "assistant") problems.push(`messages[${index}]: tool uses belong to assistant messages`)
    const next = request.messages[index + 1]
    if (uses.length > 0 && next !== undefined) {
      const answered = new Set(blocksOf(next.content).flatMap((block) => block.type === "tool_result" ? [block.toolUseId] : []))
      if (uses.some((id) => !answered.has(id))) problems.push(`messages[${index + 1}] must answer every tool use of messages[${index}]`)
    }
  })
  return problems
}

/**
 * Checks a client's answer to a sampling request (already known to be valid): the result, or the
 * reason it is refused.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkResponse = (request: CreateMessageRequestParams, response: unknown): Result.Result<CreateMessageResult, string> => {
  const decoded = decodeResult(response)
  if (Result.isFailure(decoded)) return Result.fail(`not a CreateMessageResult (at ${decoded.failure})`)
  const blocks = blocksOf(decoded.success.content)
  if (blocks.some((block) => block.type === "tool_result")) return Result.fail("a sampled message cannot carry tool results")
  const uses = blocks.filter((block) => block.type === "tool_use")
  if (uses.length > 0) {
    const offered = new Set((request.tools ?? []).map((tool) => tool.name))
    if (offered.size === 0 || request.toolChoice?.mode === "none") return Result.fail("tool use was not offered")
    if (uses.some((use) => !offered.has(use.name))) return Result.fail("tool use names a tool that was not offered")
  }
  return decoded
}

/**
 * Checks a client's answer to `roots/list`: the roots, or the reason they are refused.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkRoots = (response: unknown): Result.Result<ReadonlyArray<Root>, string> => {
  const decoded = decodeRoots(response)
  if (Result.isFailure(decoded)) return Result.fail(`not a ListRootsResult (at ${decoded.failure})`)
  const index = decoded.success.roots.findIndex((root) => !root.uri.startsWith("file://"))
  if (index >= 0) return Result.fail(`roots.${index}.uri must be a file:// URI`)
  return Result.succeed(decoded.success.roots)
}
