/**
 * A lunch poll as an MCP App: the model opens it with `poll`; a host that renders MCP Apps shows
 * the view (`ui://lunch/poll.html`, `./view.html`), whose buttons vote through the host with
 * `poll_vote`, a tool only the view may call. A host without apps gets the tally as text, and
 * never sees `poll_vote`.
 */
import { AppResource, Apps, AppTool } from "@snodo/apps"
import { Content, McpServer, Tool, ToolResult } from "@snodo/core"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { readFile } from "node:fs/promises"

const Choice = Schema.Literals(["pizza", "sushi", "salad"])
type Choice = typeof Choice.Type

/** The tally, as the view reads it from `structuredContent`. */
export interface Tally {
  readonly question: string
  readonly options: ReadonlyArray<{ readonly name: Choice; readonly votes: number }>
}

/** The votes, kept for as long as the server runs. */
export class Poll extends Context.Service<Poll, {
  readonly tally: Effect.Effect<Tally>
  readonly vote: (choice: Choice) => Effect.Effect<Tally>
}>()("examples/13-app/Poll") {
  static readonly layer = Layer.effect(Poll, Effect.gen(function*() {
    const votes = yield* Ref.make<Record<Choice, number>>({ pizza: 0, sushi: 0, salad: 0 })
    const tallyOf = (counts: Record<Choice, number>): Tally => ({
      question: "What's for lunch?",
      options: Choice.literals.map((name) => ({ name, votes: counts[name] }))
    })
    return {
      tally: Effect.map(Ref.get(votes), tallyOf),
      vote: (choice) => Effect.map(Ref.updateAndGet(votes, (counts) => ({ ...counts, [choice]: counts[choice] + 1 })), tallyOf)
    }
  }))
}

/** The view: read from `./view.html` at every `resources/read`, so editing it needs no restart. */
export const view = AppResource.make({
  uri: "ui://lunch/poll.html",
  name: "lunch-poll",
  title: "Lunch poll",
  description: "The poll's tally as bars, with a button per option",
  prefersBorder: true
}, () => Effect.promise(() => readFile(new URL("./view.html", import.meta.url), "utf8")))

const summary = (tally: Tally) => `${tally.question} ${tally.options.map((option) => `${option.name}: ${option.votes}`).join(", ")}`

/** The tally for the view (`structuredContent`) when the host renders it, as text otherwise. */
const answer = (tally: Tally) =>
  Effect.map(Apps.supported, (views) =>
    views ? ToolResult.content([Content.text(summary(tally))], { structuredContent: { ...tally } }) : summary(tally))

/** The model's tool. */
export const poll = AppTool.make(
  Tool.make("poll", {
    description: "Shows the lunch poll (an interactive view where the host supports MCP Apps)",
    input: Schema.Struct({})
  }, () => Poll.use((votes) => Effect.flatMap(votes.tally, answer))),
  { view }
)

/** The view's tool: one vote. */
export const pollVote = AppTool.make(
  Tool.make("poll_vote", {
    description: "Votes for one option of the lunch poll",
    input: Schema.Struct({ option: Choice })
  }, ({ option }) => Poll.use((votes) => Effect.flatMap(votes.vote(option), answer))),
  { view, visibility: ["app"] }
)

export const Server = McpServer.make({ name: "lunch-poll", version: "1.0.0" })
  .add(view, poll, pollVote)
  .extend(Apps.extension())

/** The server with its poll. */
export const Runtime = Server.layer.pipe(Layer.provide(Poll.layer))
