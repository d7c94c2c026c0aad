/**
 * The four lists: `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`.
 *
 * Each serves one page of the catalog's list as the principal may see it (an authorization policy
 * filters it before pagination), following the request's `cursor` (-32602 when it is not one this
 * list issued). A page's reply is made once: the list is immutable, so the same page is the same
 * reply, and the same JSON text, on every request.
 *
 * @since 0.1.0
 */
import type * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import * as Pagination from "../catalog/Pagination.ts"
import { InvalidParams } from "@snodo/protocol/jsonrpc/McpError"
import { PaginatedRequestParams } from "@snodo/protocol/wire/Meta"
import * as Route from "./Route.ts"

/**
 * Each page's reply made once (lists are immutable; views are cached per principal): the same
 * reply object on every request for that page, so its entries are serialized once here and the
 * runtime encodes the rest of its result once per dialect (`ServerRuntime`'s encoding of a reply
 * with `encoded`). A page is identified by its list and its first entry (entries are the list's
 * own, stable objects); a changed catalog is new lists, whose pages are new replies.
 */
const pageReplies = new WeakMap<object, WeakMap<object, Effect.Effect<Route.Reply>>>()
const emptyPages = new WeakMap<object, Effect.Effect<Route.Reply>>()

const replyOf = (key: string, page: Pagination.Page<object>): Effect.Effect<Route.Reply> => {
  const result: Record<string, unknown> = {}
  if (page.nextCursor !== undefined) result["nextCursor"] = page.nextCursor
  return Effect.succeed<Route.Reply>({ _tag: "Result", result, encoded: { key, json: page.items.length === 0 ? "[]" : JSON.stringify(page.items) } })
}

const pageReply = (list: Pagination.PagedList<object>, key: string, page: Pagination.Page<object>): Effect.Effect<Route.Reply> => {
  const first = page.items[0]
  if (first === undefined) {
    let reply = emptyPages.get(list)
    if (reply === undefined) {
      reply = replyOf(key, page)
      emptyPages.set(list, reply)
    }
    return reply
  }
  let replies = pageReplies.get(list)
  if (replies === undefined) {
    replies = new WeakMap()
    pageReplies.set(list, replies)
  }
  let reply = replies.get(first)
  if (reply === undefined) {
    reply = replyOf(key, page)
    replies.set(first, reply)
  }
  return reply
}

type Kind = "tools" | "resources" | "templates" | "prompts"

const make = (method: Method.Request<typeof Methods.ToolsList.params.Type, unknown>, kind: Kind, key: string) =>
  Route.make({
    method,
    params: PaginatedRequestParams.schema,
    run: (call) => {
      const list = call.environment.views(kind, { principal: call.principal, method: method.name })
      const page = Pagination.page(list, call.params.cursor)
      if (page instanceof InvalidParams) return Effect.fail(page)
      return pageReply(list, key, page)
    }
  })

/**
 * `tools/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ToolsList = make(Methods.ToolsList, "tools", "tools")

/**
 * `resources/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ResourcesList = make(Methods.ResourcesList, "resources", "resources")

/**
 * `resources/templates/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ResourceTemplatesList = make(Methods.ResourcesTemplatesList, "templates", "resourceTemplates")

/**
 * `prompts/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const PromptsList = make(Methods.PromptsList, "prompts", "prompts")
