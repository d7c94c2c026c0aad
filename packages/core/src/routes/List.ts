/**
 * The four lists: `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`.
 *
 * Each serves one page of the catalog's list as the principal may see it (an authorization policy
 * filters it before pagination), following the request's `cursor` (-32602 when it is not one this
 * list issued). A page's entries are serialized once: the list is immutable, so the same page is
 * the same JSON text on every request.
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

/** Each page of a list serialized once (lists are immutable; views are cached per principal). */
const encodedPages = new WeakMap<object, WeakMap<object, string>>()

const encodedPage = (list: Pagination.PagedList<object>, items: ReadonlyArray<object>): string => {
  // a page is identified by its first entry (entries are the list's own, stable objects)
  const first = items[0]
  if (first === undefined) return "[]"
  let pages = encodedPages.get(list)
  if (pages === undefined) {
    pages = new WeakMap()
    encodedPages.set(list, pages)
  }
  let encoded = pages.get(first)
  if (encoded === undefined) {
    encoded = JSON.stringify(items)
    pages.set(first, encoded)
  }
  return encoded
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
      const result: Record<string, unknown> = {}
      if (page.nextCursor !== undefined) result["nextCursor"] = page.nextCursor
      return Effect.succeed<Route.Reply>({ _tag: "Result", result, encoded: { key, json: encodedPage(list, page.items) } })
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
