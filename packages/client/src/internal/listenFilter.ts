/**
 * What a listen filter asks for, and whether the server will ever deliver it: an initialize-era
 * server declares its change notifications in its capabilities; a 2026-07-28 server says which it
 * honours in `notifications/subscriptions/acknowledged`. A listen for nothing the server offers
 * fails at once rather than waiting forever.
 */
import { Predicate } from "effect"
import type * as Notifications from "@snodo/protocol/wire/Notifications"

const record = (value: unknown): Readonly<Record<string, unknown>> => Predicate.isObject(value) ? value : {}

/** The kinds of change a filter asks for, by their filter key. */
export const askedKeys = (filter: Notifications.SubscriptionFilter): ReadonlyArray<keyof Notifications.SubscriptionFilter> =>
  (["toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions"] as const).filter((key) =>
    key === "resourceSubscriptions" ? (filter.resourceSubscriptions ?? []).length > 0 : filter[key] === true
  )

/** Whether an initialize-era server's capabilities declare the change a filter key asks for. */
export const declares = (capabilities: Readonly<Record<string, unknown>>, key: keyof Notifications.SubscriptionFilter): boolean => {
  switch (key) {
    case "toolsListChanged":
      return record(capabilities["tools"])["listChanged"] === true
    case "promptsListChanged":
      return record(capabilities["prompts"])["listChanged"] === true
    case "resourcesListChanged":
      return record(capabilities["resources"])["listChanged"] === true
    default:
      return record(capabilities["resources"])["subscribe"] === true
  }
}

/** Whether a 2026-07-28 acknowledgement honours a filter key. */
export const honours = (acknowledged: Readonly<Record<string, unknown>>, key: keyof Notifications.SubscriptionFilter): boolean => {
  const value = acknowledged[key]
  return Array.isArray(value) ? value.length > 0 : value === true
}

