/**
 * What a listen filter asks for, and whether the server will ever deliver it: an initialize-era
 * server declares its change notifications in its capabilities; a 2026-07-28 server says which it
 * honours in `notifications/subscriptions/acknowledged`. A listen for nothing the server offers
 * fails at once rather than waiting forever.
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import type * as Notifications from "@snodo/protocol/wire/Notifications"

/** The filter keys of the core change notifications (the table's, without an extension's). */
const coreKeys = [...Methods.byListenKey.values()].flatMap((method) =>
  method.extension === undefined && method.listenKey !== undefined ? [method.listenKey as keyof Notifications.SubscriptionFilter] : []
)

/** The kinds of change a filter asks for, by their filter key. */
export const askedKeys = (filter: Notifications.SubscriptionFilter): ReadonlyArray<keyof Notifications.SubscriptionFilter> =>
  coreKeys.filter((key) => {
    const value = filter[key]
    return Array.isArray(value) ? value.length > 0 : value === true
  })

/** Whether an initialize-era server's capabilities declare the change a filter key asks for (the table's `declaredBy`). */
export const declares = (capabilities: Readonly<Record<string, unknown>>, key: keyof Notifications.SubscriptionFilter): boolean =>
  Methods.declaresListenKey(capabilities, key)

/** Whether a 2026-07-28 acknowledgement honours a filter key. */
export const honours = (acknowledged: Readonly<Record<string, unknown>>, key: keyof Notifications.SubscriptionFilter): boolean => {
  const value = acknowledged[key]
  return Array.isArray(value) ? value.length > 0 : value === true
}
