/**
 * The two diagnostic hooks of the conformance suite: each publishes one list change through the
 * server's `SubscriptionHub`, so every open `subscriptions/listen` stream whose filter asked for it
 * receives the notification (tagged with its own listen id) and no other stream does. They change
 * nothing else: `tools/list` and `prompts/list` answer the same before and after.
 *
 * A third, `test_trigger_resource_update`, publishes `notifications/resources/updated` for the
 * `uri` it is given: the listen streams and initialize-era sessions subscribed to that resource
 * receive it (on every instance, with a shared hub).
 */
import * as Content from "@snodo/core/Content"
import * as SubscriptionHub from "@snodo/core/SubscriptionHub"
import * as Tool from "@snodo/core/Tool"
import * as ToolResult from "@snodo/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const NoInput = Schema.Struct({})

const triggered = ToolResult.content([Content.text("Mutation triggered")])

export const toolChange = Tool.make("test_trigger_tool_change", {
  description: "Diagnostic hook: emits notifications/tools/list_changed",
  input: NoInput
}, () => SubscriptionHub.publish(SubscriptionHub.toolsListChanged).pipe(Effect.as(triggered)))

export const promptChange = Tool.make("test_trigger_prompt_change", {
  description: "Diagnostic hook: emits notifications/prompts/list_changed",
  input: NoInput
}, () => SubscriptionHub.publish(SubscriptionHub.promptsListChanged).pipe(Effect.as(triggered)))

export const resourceUpdate = Tool.make("test_trigger_resource_update", {
  description: "Diagnostic hook: emits notifications/resources/updated for the resource uri",
  input: Schema.Struct({ uri: Schema.String })
}, ({ uri }) => SubscriptionHub.publish(SubscriptionHub.resourceUpdated(uri)).pipe(Effect.as(triggered)))
