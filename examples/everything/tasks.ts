/**
 * The Tasks extension fixtures of the everything server (FIXTURES.md §3.6): the tools the
 * conformance suite's `tasks-*` scenarios call, and the policy that says which run as tasks.
 */
import * as Input from "@snodo/core/Input"
import * as McpError from "@snodo/core/McpError"
import * as Tool from "@snodo/core/Tool"
import * as ToolResult from "@snodo/core/ToolResult"
import * as Tasks from "@snodo/tasks"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const NoInput = Schema.Struct({})

export const greet = Tool.make("greet", {
  description: "Greets someone, synchronously (never a task)",
  input: Schema.Struct({ name: Schema.String })
}, ({ name }) => Effect.succeed(`Hello, ${name}!`))

export const slowCompute = Tool.make("slow_compute", {
  description: "Sleeps for `seconds`, then answers; a task when the client negotiated the extension",
  input: Schema.Struct({ seconds: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 3600 })), label: Schema.optional(Schema.String) })
}, ({ label, seconds }) =>
  Effect.sleep(`${seconds} seconds`).pipe(Effect.as(`Computed ${label ?? "result"} after ${seconds}s`)))

export const failingJob = Tool.make("failing_job", {
  description: "Fails after a second with a tool error (isError); only runs as a task",
  input: NoInput
}, () => Effect.sleep("1 second").pipe(Effect.as(ToolResult.error("The job failed: the input was rejected"))))

export const protocolErrorJob = Tool.make("protocol_error_job", {
  description: "Fails with a JSON-RPC error, so its task ends failed",
  input: NoInput
}, () => Effect.fail(new McpError.InternalError({ message: "The job could not run: its backend is unavailable" })))

const ConfirmForm = Input.form({
  message: "Really delete the file?",
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
})

export const confirmDelete = Tool.make("confirm_delete", {
  description: "Asks for confirmation while running as a task, then deletes (pretends to)",
  input: Schema.Struct({ filename: Schema.String })
}, ({ filename }) =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("confirm_delete", ConfirmForm)
    return answer.action === "accept" && answer.content.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`
  }))

const PartForm = (part: number) =>
  Input.form({
    message: `Part ${part}: your name, and confirm`,
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, confirm: { type: "boolean" } }
    }
  })

export const multiInput = Tool.make("multi_input", {
  description: "Asks two questions at once while running as a task",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const answers = yield* Input.all({ first: Input.elicit("part_1", PartForm(1)), second: Input.elicit("part_2", PartForm(2)) })
    const nameOf = (answer: typeof answers.first) => answer.action === "accept" ? String(answer.content.name ?? "") : answer.action
    return `Got ${nameOf(answers.first)} and ${nameOf(answers.second)}`
  }))

const NameForm = Input.form({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

export const toolWithTask = Tool.make("test_tool_with_task", {
  description: "Asks for a name by MRTR, then runs the greeting as a task",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_name", NameForm)
    yield* Tasks.detach
    yield* Effect.sleep("100 millis")
    return answer.action === "accept" ? `Hello, ${answer.content.name}! (from a task)` : `No name given (${answer.action})`
  }))

export const tools = [greet, slowCompute, failingJob, protocolErrorJob, confirmDelete, multiInput, toolWithTask] as const

/** Which of them run as tasks. */
export const policies: Tasks.Options["tools"] = Tasks.policies(
  [slowCompute, Tasks.optional()],
  [failingJob, Tasks.required()],
  [protocolErrorJob, Tasks.required()],
  [confirmDelete, Tasks.required()],
  [multiInput, Tasks.required()],
  [toolWithTask, Tasks.required({ detach: true })]
)
