/**
 * The client's cache of results that carry `ttlMs` (`server/discover`, the lists, `resources/read`),
 * keyed by method and params. One client is one principal, so a `private` result is as reusable as
 * a `public` one here. Change notifications drop what they make stale.
 */
/** A result as the server wrote it. */
type Result = Readonly<Record<string, unknown>> & { readonly resultType: string }

export interface ResultCache {
  /** The result for `key` while its `ttlMs` lasts at `now`. */
  readonly get: (key: string, now: number) => Result | undefined
  /** Keeps a complete result with a positive `ttlMs`; anything else is not kept. */
  readonly put: (key: string, result: Result, now: number) => void
  /** Drops every entry of a method (whatever its params). */
  readonly dropMethod: (method: string) => void
}

/** The key of a request. */
export const keyOf = (method: string, params: Readonly<Record<string, unknown>>): string => `${method} ${JSON.stringify(params)}`

export const make = (): ResultCache => {
  const entries = new Map<string, { readonly expires: number; readonly result: Result }>()
  return {
    get: (key, now) => {
      const hit = entries.get(key)
      return hit !== undefined && hit.expires > now ? hit.result : undefined
    },
    put: (key, result, now) => {
      const ttl = result["ttlMs"]
      if (typeof ttl === "number" && ttl > 0 && result.resultType === "complete") entries.set(key, { expires: now + ttl, result })
    },
    dropMethod: (method) => {
      const prefix = `${method} `
      for (const key of entries.keys()) if (key.startsWith(prefix)) entries.delete(key)
    }
  }
}
