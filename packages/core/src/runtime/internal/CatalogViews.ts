/**
 * What each principal sees of the catalog's four lists.
 *
 * Without an authorization policy everyone sees the catalog's precomputed lists. With one, the
 * `discovery` phase filters each list per principal before pagination, and the principal's id
 * enters the list fingerprint, so a cursor never crosses principals. Views are cached per
 * principal id (bounded), so a policy runs once per principal and list, not per page: its
 * `discovery` answer must depend only on the principal and the component.
 *
 * @since 0.1.0
 */
import { type Catalog, matchTemplate } from "../../catalog/Catalog.ts"
import * as Pagination from "../../catalog/Pagination.ts"
import * as Authorization from "../Authorization.ts"
import type { SubscriptionHub } from "../SubscriptionHub.ts"

type Entry = Readonly<Record<string, unknown>>

/**
 * The four lists as one principal sees them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Views {
  readonly tools: Pagination.PagedList<Entry>
  readonly resources: Pagination.PagedList<Entry>
  readonly templates: Pagination.PagedList<Entry>
  readonly prompts: Pagination.PagedList<Entry>
}

/**
 * Which list.
 *
 * @category models
 * @since 0.1.0
 */
export type ListKind = keyof Views

/**
 * Most principals whose views are kept; past it the cache starts over.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxCachedPrincipals = 1024

/**
 * Every component of a list next to its wire entry, in list order.
 *
 * @category combinators
 * @since 0.1.0
 */
export const componentsOf = (catalog: Catalog): Record<ListKind, ReadonlyArray<readonly [Authorization.Component, Entry]>> => ({
  tools: [...catalog.tools.values()].map((tool, index) => [
    Authorization.toolComponent(tool.tool),
    catalog.lists.tools.items[index]!
  ]),
  resources: [...catalog.resources.values()].map((resource, index) => [
    Authorization.resourceComponent(resource),
    catalog.lists.resources.items[index]!
  ]),
  templates: catalog.templates.map((template, index) => [
    Authorization.templateComponent(template.template),
    catalog.lists.templates.items[index]!
  ]),
  prompts: [...catalog.prompts.values()].map((prompt, index) => [
    Authorization.promptComponent(prompt),
    catalog.lists.prompts.items[index]!
  ])
})

/**
 * The list of one kind for one request.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  catalog: Catalog,
  policy: Authorization.Policy | undefined
): (kind: ListKind, request: Authorization.RequestInfo) => Pagination.PagedList<Entry> => {
  if (policy === undefined) return (kind) => catalog.lists[kind]
  const components = componentsOf(catalog)
  const cache = new Map<string, Partial<Record<ListKind, Pagination.PagedList<Entry>>>>()
  return (kind, request) => {
    const id = request.principal.id
    let views = cache.get(id)
    if (views === undefined) {
      if (cache.size >= maxCachedPrincipals) cache.clear()
      views = {}
      cache.set(id, views)
    }
    const cached = views[kind]
    if (cached !== undefined) return cached
    const visible = components[kind]
      .filter(([component]) => policy.authorize("discovery", component, request) === "allow")
      .map(([, entry]) => entry)
    const list = Pagination.makeList(visible, catalog.lists[kind].pageSize, id)
    views[kind] = list
    return list
  }
}

/**
 * The hub as one principal may see it: `resources/updated` for a resource (or a template's
 * resource) the policy hides from that principal in discovery is not delivered. List changes are
 * delivered to everyone, like the capabilities.
 *
 * @category combinators
 * @since 0.1.0
 */
export const visibleHub = (
  hub: SubscriptionHub["Service"],
  catalog: Catalog,
  policy: Authorization.Policy | undefined
): SubscriptionHub["Service"] => {
  if (policy === undefined) return hub
  const componentOf = (uri: string): Authorization.Component | undefined => {
    const resource = catalog.resources.get(uri)
    if (resource !== undefined) return Authorization.resourceComponent(resource)
    const matched = matchTemplate(catalog, uri)
    return matched === undefined ? undefined : Authorization.templateComponent(matched.template.template)
  }
  return {
    publish: hub.publish,
    subscribe: (subscriber) =>
      hub.subscribe({
        ...subscriber,
        deliver: (change) => {
          if (change._tag === "ResourceUpdated") {
            const component = componentOf(change.uri)
            const request = { principal: subscriber.principal, method: "subscriptions/listen" }
            if (component !== undefined && policy.authorize("discovery", component, request) !== "allow") return
          }
          subscriber.deliver(change)
        }
      })
  }
}
