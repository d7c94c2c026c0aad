/**
 * The initialize-era sessions of one HTTP application (when its options enable `sessions`).
 *
 * `initialize` creates a session with a fresh `Mcp-Session-Id` (24 random bytes, base64url: only
 * visible ASCII); every later request of that client carries the id, and finds the same core
 * session (`runtime/Session`: the negotiated version and capabilities, the log level, resource
 * subscriptions, waiting server-to-client requests). A session belongs to the principal that
 * created it: another principal presenting its id is told it does not exist (404), as is anyone
 * after `DELETE`, after `idleTimeout` without a request, or once the server shut down.
 *
 * At most one GET stream per session carries the server's messages not tied to a request (list
 * changes, resource updates); a second GET is 409. A message for a session without an open stream
 * is dropped, as is one beyond 64 waiting to be written (a client that stopped reading). Streams
 * are few and mortal: at most `maxStreams` are open at once and `maxStreamsPerPrincipal` of one
 * principal (they hold a request's place each, and must leave room for the POSTs of everyone
 * else), and each ends after `streamTimeout` (the client opens it again, a request that keeps the
 * session alive). An open stream does not keep its session alive: only requests do.
 *
 * At most `max` sessions exist at once, `maxPerPrincipal` of one caller (see {@link limitKey}:
 * an authenticated principal, or an anonymous caller's source address), and a session that
 * has not sent `notifications/initialized` within `initializeTimeout` is ended: one client cannot
 * hold the table for the idle timeout. Creating one beyond a bound first forgets the expired ones,
 * then is refused with the time until the first of them expires (the 503's `Retry-After`).
 * Sessions live in this process, unless the application provides a {@link SessionStore}: then
 * this table is the instance's copy of the sessions it served, {@link Shared} keeps it in step
 * with the store (each request of a session first `hydrate`s it, `initialize` `reserve`s its
 * record, what a request changed is `persist`ed before its answer), and any instance serves any
 * request of any session. The stream bounds stay per instance (a stream is a connection here).
 *
 * @example
 * ```ts
 * import * as Sessions from "@snodo/http/Sessions"
 *
 * const sessions = Sessions.make(Options.defaultSessions, Effect.runFork)
 * const created = sessions.create("anonymous", Sessions.limitKey("anonymous", "203.0.113.7")) // an HttpSession, or the Refused to answer 503 with
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { anonymous, type Principal } from "@snodo/core/Principal"
import * as OutgoingRequests from "@snodo/protocol/peer/OutgoingRequests"
import * as Outbox from "@snodo/protocol/peer/Outbox"
import * as Session from "@snodo/core/dialect/Session"
import * as Builtins from "./Builtins.ts"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import type { Delivery } from "./Exchange.ts"
import type { SessionSettings } from "./Options.ts"
import * as SessionStore from "./SessionStore.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"


/**
 * One session as the HTTP transport holds it.
 *
 * @category models
 * @since 0.1.0
 */
export interface HttpSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string
  /** Who created it; nobody else finds it. */
  readonly principal: string
  readonly session: Session.Session
}

/**
 * A session or a stream refused by a bound: which (`sessions`, `sessionsPerPrincipal`, `streams`,
 * `streamsPerPrincipal`), its value, and when a place frees up at the latest without anyone's
 * help (the first expiry or stream deadline among those holding the places).
 *
 * @category models
 * @since 0.1.0
 */
export type Refused = SessionStore.Refused

/**
 * The steps a transport takes around a request when sessions are shared through a store; each
 * runs before (or, for `persist`, at the end of) the synchronous path this table serves.
 *
 * @category models
 * @since 0.1.0
 */
export interface Shared {
  /**
   * Brings this instance's copy of the session up to date with the store (or forgets it: 404).
   * When the store answers at once (its `touch` returns an `Exit`: a cached copy) and nothing is
   * left to run, it returns an `Exit` too: the transport goes on in the same turn, without a fiber.
   */
  readonly hydrate: (id: string, principal: Principal["Service"]) => Effect.Effect<void, SessionStore.SessionStoreUnavailable>
  /** Records a new session of `principal` in the store (the caps counted there) and here. */
  readonly reserve: (principal: string, limitKey?: string) => Effect.Effect<HttpSession | Refused, SessionStore.SessionStoreUnavailable>
  /**
   * Stores what the session's requests changed, if anything (before its answer leaves). The
   * session is compared when `persist` is called: when nothing changed it returns `Effect.void`
   * (an `Exit`), and a request answered at once is still answered at once.
   */
  readonly persist: (id: string) => Effect.Effect<void>
  /** Ends the session everywhere: the store forgets it and every instance ends its copy. */
  readonly forget: (id: string) => Effect.Effect<void>
}

/**
 * What a shared table needs: the store, and how a session negotiated elsewhere resumes following
 * the hub here (`ServerRuntime.resume`).
 *
 * @category models
 * @since 0.1.0
 */
export interface SharedOptions {
  readonly store: SessionStore.SessionStore["Service"]
  readonly resume: (session: Session.Session, principal: Principal["Service"]) => Effect.Effect<void>
}

/**
 * The sessions of one application.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sessions {
  readonly settings: SessionSettings
  /** The steps around each request when sessions are shared through a store; `undefined` otherwise. */
  readonly shared: Shared | undefined
  /**
   * A new session of `principal`, or the bound that refused it; `maxPerPrincipal` counts the
   * sessions of `key` (default the principal; see {@link limitKey}).
   */
  readonly create: (principal: string, key?: string) => HttpSession | Refused
  /** The live session with this id, if `principal` created it (and marks it used). */
  readonly find: (id: string, principal: string) => HttpSession | undefined
  /** Ends a session: its stream ends, its hub subscription and waiting requests with it. */
  readonly remove: (id: string) => void
  /**
   * Opens the session's GET stream on `delivery`; returns the release to call once the response is
   * over, `"conflict"` when it already has one, or the bound that refused it.
   */
  readonly attach: (session: HttpSession, delivery: Delivery) => (() => void) | "conflict" | Refused
  /** Sessions alive. */
  readonly size: () => number
  /** GET streams open. */
  readonly streams: () => number
  /** Ends every session and refuses new ones (shutdown). */
  readonly closeAll: () => void
}

interface Stream {
  readonly delivery: Delivery
  readonly endsAt: number
  readonly timer: ReturnType<typeof setTimeout>
  /** The session's notifications to this stream (bounded; paced by `paceMillis`). */
  readonly outbox: Outbox.Outbox
}

interface Entry {
  readonly http: HttpSession
  /** What `maxPerPrincipal` counts this session under. */
  readonly key: string
  readonly createdAt: number
  lastSeen: number
  stream: Stream | undefined
  /** Shared: the state as last stored, as JSON (what `persist` compares with). */
  saved: string
  /** Shared: the session's fields when `saved` was taken, to tell at a glance that nothing changed since. */
  snapshot: Snapshot
  /** Shared: whether this copy was resumed on the hub here (`ServerRuntime.resume`: once per session). */
  resumed: boolean
  /** Shared: the stored state last applied to this copy (a store answers an unchanged one with the same object). */
  read: SessionStore.State | undefined
  /** The requests to the client this instance's handlers sent (without the forwarding). */
  readonly requests: OutgoingRequests.OutgoingRequests
}

const newId = (): string => Builtins.crypto().randomBytes(24).toString("base64url")

/**
 * What a session's stored state is made of, as it was (the negotiated record by reference: it is
 * set once and never mutated), for `persist` to see without serialising it that nothing changed.
 */
interface Snapshot {
  readonly negotiated: Session.Negotiated | undefined
  readonly initialized: boolean
  readonly logLevel: string | undefined
  readonly subscriptions: ReadonlyArray<string>
}

const snapshotOf = (session: Session.Session): Snapshot => ({
  negotiated: session.negotiated,
  initialized: session.initialized,
  logLevel: session.logLevel,
  subscriptions: Array.from(session.resourceSubscriptions)
})

/**
 * Whether the session is as `snapshot` saw it: then its state serialises as it did then. `false`
 * says only that it may differ (compare the JSON).
 */
const asSnapshot = (session: Session.Session, snapshot: Snapshot): boolean => {
  if (session.negotiated !== snapshot.negotiated || session.initialized !== snapshot.initialized || session.logLevel !== snapshot.logLevel) {
    return false
  }
  const subscriptions = session.resourceSubscriptions
  const before = snapshot.subscriptions
  if (subscriptions.size !== before.length) return false
  let at = 0
  for (const uri of subscriptions) if (uri !== before[at++]) return false
  return true
}

const noSnapshot: Snapshot = { negotiated: undefined, initialized: false, logLevel: undefined, subscriptions: [] }

/** A session's state as a store keeps it. */
const stateOf = (session: Session.Session): SessionStore.State => {
  const negotiated = session.negotiated
  const base = {
    clientCapabilities: negotiated?.clientCapabilities ?? {},
    initialized: session.initialized,
    subscriptions: Array.from(session.resourceSubscriptions)
  }
  return {
    ...base,
    ...(negotiated === undefined ? {} : { version: negotiated.version }),
    ...(negotiated?.clientInfo === undefined ? {} : { clientInfo: negotiated.clientInfo }),
    ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel })
  }
}

const increment = (counts: Map<string, number>, key: string, by: number): void => {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}

/**
 * What `maxPerPrincipal` counts a new session under: an authenticated principal's id, wherever it
 * connects from; for an anonymous caller, its source address (`anonymous@203.0.113.7`), so one
 * anonymous client filling its share leaves every other address theirs. An IPv6 address counts
 * by its /64 (one host is usually given a whole /64), an IPv4-mapped IPv6 address as the IPv4
 * one. Without an address (a transport that does not know it) anonymous callers share one key.
 * Behind a reverse proxy the address is the proxy's unless the server trusts it to forward the
 * client's.
 *
 * @example
 * ```ts
 * import * as Sessions from "@snodo/http/Sessions"
 *
 * Sessions.limitKey("anonymous", "::ffff:192.0.2.1") // "anonymous@192.0.2.1"
 * Sessions.limitKey("anonymous", "2001:db8:0:1::42") // "anonymous@2001:db8:0:1::/64"
 * Sessions.limitKey("alice", "192.0.2.1") // "alice"
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const limitKey = (principal: string, remoteAddress: string | undefined): string => {
  if (principal !== anonymous.id || remoteAddress === undefined || remoteAddress === "") return principal
  return `${principal}@${sourceOf(remoteAddress)}`
}

/** An address as a bound counts it: IPv4 as is, IPv6 by its /64. */
const sourceOf = (address: string): string => {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped !== null) return mapped[1]!
  if (!address.includes(":")) return address
  const [head = "", tail] = address.toLowerCase().split("%")[0]!.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`
}

/**
 * A store. `run` runs the effect that ends a core session (unsubscribing it from the hub) with the
 * application's services. With `paceMillis` (the transport's `subscriptionInterval`), a GET stream
 * writes at most once per interval: one that wrote nothing within the interval writes a
 * notification at once, the notifications that come while it rests leave together in one write at
 * the end of the interval, a notification already waiting is not queued twice (a second
 * `tools/list_changed` says nothing new), and one publisher cannot make a write per stream per
 * change.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  settings: SessionSettings,
  run: (effect: Effect.Effect<void>) => unknown,
  paceMillis = 0,
  sharedOptions?: SharedOptions
): Sessions => {
  const entries = new Map<string, Entry>()
  const store = sharedOptions?.store
  const origin = SessionStore.newOrigin()
  // Shared: this instance's requests to clients are named apart from every other instance's.
  const requestsOptions = store === undefined ? undefined : { idPrefix: `snodo-${origin}-` }
  const perPrincipal = new Map<string, number>()
  const streamsPerPrincipal = new Map<string, number>()
  let streams = 0
  let closed = false

  const closeStream = (entry: Entry): void => {
    const stream = entry.stream
    if (stream === undefined) return
    entry.stream = undefined
    clearTimeout(stream.timer)
    stream.outbox.close()
    streams--
    increment(streamsPerPrincipal, entry.http.principal, -1)
    stream.delivery.end()
  }

  /**
   * Ends this instance's copy; `everywhere` (a DELETE, a failed `initialize`) also has a shared
   * store forget it and tell the others. Expiry seen here and shutdown end the copy only: the
   * session may be alive on other instances (the store expires it by its own clock).
   */
  const end = (entry: Entry, everywhere = false) => {
    if (entries.get(entry.http.id) !== entry) return
    entries.delete(entry.http.id)
    increment(perPrincipal, entry.key, -1)
    closeStream(entry)
    run(entry.http.session.end)
    if (everywhere && store !== undefined) run(store.remove(entry.http.id, origin))
  }

  /** When the session ends unless a request comes: idle, or never initialized in time. */
  const expiresAt = (entry: Entry): number => {
    const idle = entry.lastSeen + settings.idleMillis
    return entry.http.session.initialized ? idle : Math.min(idle, entry.createdAt + settings.initializeMillis)
  }

  const expired = (entry: Entry, now: number) => now >= expiresAt(entry)

  const sweep = (now: number) => {
    for (const entry of entries.values()) if (expired(entry, now)) end(entry)
  }

  /** The bound, with the time until the first of the places it counts frees up by itself. */
  const refused = (bound: Refused["bound"], limit: number, now: number, counts: (entry: Entry) => boolean, at: (entry: Entry) => number): Refused => {
    let first = Infinity
    for (const entry of entries.values()) if (counts(entry)) first = Math.min(first, at(entry))
    return { _tag: "Refused", bound, limit, retryAfterMillis: Number.isFinite(first) ? Math.max(0, first - now) : settings.initializeMillis }
  }

  const create = (principal: string, key = principal): HttpSession | Refused => {
    if (closed) return { _tag: "Refused", bound: "sessions", limit: settings.max, retryAfterMillis: 1000 }
    const now = Date.now()
    if (entries.size >= settings.max || (perPrincipal.get(key) ?? 0) >= settings.maxPerPrincipal) sweep(now)
    if ((perPrincipal.get(key) ?? 0) >= settings.maxPerPrincipal) {
      return refused("sessionsPerPrincipal", settings.maxPerPrincipal, now, (entry) => entry.key === key, expiresAt)
    }
    if (entries.size >= settings.max) return refused("sessions", settings.max, now, () => true, expiresAt)
    return add(newId(), principal, now, key).http
  }

  /** A session's answer to a request of another instance's handler goes to that instance. */
  const forwarding = (id: string, local: OutgoingRequests.OutgoingRequests): OutgoingRequests.OutgoingRequests =>
    store === undefined ? local : {
      ...local,
      receive: (response: Envelope.Response) => {
        if (local.receive(response)) return true
        const requestId = response.id
        if (typeof requestId !== "string") return false
        run(store.publish({ _tag: "Response", id, origin, requestId, result: response.result, error: response.error }))
        return true
      }
    }

  const add = (id: string, principal: string, now: number, key = principal): Entry => {
    // Shared: this table is a cache of the store; copies not used for the idle time go first.
    if (store !== undefined && entries.size >= settings.max) sweep(now)
    const requests = OutgoingRequests.make(requestsOptions)
    const entry: Entry = {
      http: {
        id,
        principal,
        session: Session.makeUnsafe({
          id,
          outbound: (frame) => void entry.stream?.outbox.offer(frame),
          requests: forwarding(id, requests)
        })
      },
      key,
      createdAt: now,
      lastSeen: now,
      stream: undefined,
      saved: "",
      snapshot: noSnapshot,
      resumed: false,
      read: undefined,
      requests
    }
    remember(entry)
    entries.set(id, entry)
    increment(perPrincipal, key, 1)
    return entry
  }

  const find = (id: string, principal: string): HttpSession | undefined => {
    const entry = entries.get(id)
    if (entry === undefined || entry.http.principal !== principal) return undefined
    const now = Date.now()
    if (expired(entry, now)) {
      end(entry)
      return undefined
    }
    entry.lastSeen = now
    return entry.http
  }

  const attach = (session: HttpSession, delivery: Delivery): (() => void) | "conflict" | Refused => {
    const entry = entries.get(session.id)
    if (entry === undefined) return () => {}
    if (entry.stream !== undefined) return "conflict"
    const now = Date.now()
    const principal = entry.http.principal
    const endsAt = (other: Entry) => other.stream?.endsAt ?? Infinity
    if ((streamsPerPrincipal.get(principal) ?? 0) >= settings.maxStreamsPerPrincipal) {
      return refused("streamsPerPrincipal", settings.maxStreamsPerPrincipal, now, (other) => other.stream !== undefined && other.http.principal === principal, endsAt)
    }
    if (streams >= settings.maxStreams) {
      return refused("streams", settings.maxStreams, now, (other) => other.stream !== undefined, endsAt)
    }
    // At its deadline the stream ends (the client opens it again); a session expired meanwhile ends too.
    const timer = setTimeout(() => {
      if (entry.stream !== stream) return
      closeStream(entry)
      if (expired(entry, Date.now())) end(entry)
    }, settings.streamMillis)
    const outbox = Outbox.makeUnsafe({
      write: (frames, written) => delivery.event(frames.map((frame) => `data: ${frame}\n\n`).join(""), written),
      paceMillis
    })
    const stream: Stream = { delivery, endsAt: now + settings.streamMillis, timer, outbox }
    entry.stream = stream
    streams++
    increment(streamsPerPrincipal, principal, 1)
    // One stream per session across instances: an older one elsewhere ends.
    if (store !== undefined) run(store.publish({ _tag: "StreamOpened", id: entry.http.id, origin }))
    delivery.open()
    // An SSE comment: the answer's head leaves now, not with the first change.
    delivery.event(": stream open\n\n", undefined)
    return () => {
      if (entry.stream === stream) closeStream(entry)
    }
  }

  const limits: SessionStore.Limits = settings

  /** Records the copy's state as stored now (shared). */
  const remember = (entry: Entry): void => {
    const session = entry.http.session
    entry.saved = JSON.stringify(stateOf(session))
    entry.snapshot = snapshotOf(session)
  }

  /** Whether a request here changed the copy since its state was last stored or read (shared). */
  const changedHere = (entry: Entry): boolean =>
    !asSnapshot(entry.http.session, entry.snapshot) && JSON.stringify(stateOf(entry.http.session)) !== entry.saved

  /** Brings a local session to the stored state. */
  const apply = (session: Session.Session, state: SessionStore.State) => {
    if (state.version !== undefined && session.negotiated === undefined) {
      session.negotiate({ version: state.version, clientCapabilities: state.clientCapabilities, clientInfo: state.clientInfo })
    }
    if (state.initialized && !session.initialized) session.markInitialized()
    if (state.logLevel !== undefined && state.logLevel !== session.logLevel) session.setLogLevel(state.logLevel)
    const wanted = new Set(state.subscriptions)
    for (const uri of session.resourceSubscriptions) if (!wanted.has(uri)) session.unsubscribe(uri)
    for (const uri of wanted) session.subscribe(uri)
  }

  /**
   * Brings a copy to the stored state, unless a request here changed it and has not stored it
   * yet (a concurrent request's read must not undo a `resources/subscribe` about to be saved);
   * records what is stored, in `persist`'s form (same function, same key order).
   */
  const refresh = (entry: Entry, state: SessionStore.State) => {
    // The state applied last time, read again: this copy holds it already (or a change of its own since).
    if (state === entry.read) return
    if (changedHere(entry)) return
    apply(entry.http.session, state)
    entry.read = state
    remember(entry)
  }

  const receive = (event: SessionStore.Event) => {
    const entry = entries.get(event.id)
    if (entry === undefined || event.origin === origin) return
    switch (event._tag) {
      case "Ended":
        return end(entry, false)
      case "Changed":
        return refresh(entry, event.state)
      case "Response":
        return void entry.requests.receive({ _tag: "Response", id: event.requestId, result: event.result, error: event.error })
      case "StreamOpened":
        return closeStream(entry)
    }
  }
  const unlisten = store?.events(receive)

  /** A request's copy brought to the stored `state` (`undefined`: gone), and resumed on the hub here once negotiated. */
  const hydrated = (
    id: string,
    principal: Principal["Service"],
    state: SessionStore.State | undefined,
    resume: SharedOptions["resume"]
  ): Effect.Effect<void> => {
    const known = entries.get(id)
    if (state === undefined) {
      // Gone (or expired): this copy ends too. Another principal naming the id finds nothing,
      // and ends nothing of the owner's.
      if (known !== undefined && known.http.principal === principal.id) end(known, false)
      return Effect.void
    }
    const now = Date.now()
    const entry = known ?? add(id, principal.id, now)
    entry.lastSeen = now
    refresh(entry, state)
    // Negotiated elsewhere: from now on it follows the hub here too (once per session: the
    // session's `follow` does nothing the second time, so a copy resumed already skips it).
    if (state.version === undefined || entry.resumed) return Effect.void
    return Effect.suspend(() => {
      entry.resumed = true
      return resume(entry.http.session, principal)
    })
  }

  const makeShared = (
    shared: SessionStore.SessionStore["Service"],
    resume: SharedOptions["resume"]
  ): Shared => ({
    // Answered at once (a store's cached copy): so is this, unless the copy must be resumed.
    hydrate: (id, principal) =>
      Immediate.flatMap(shared.touch(id, principal.id, limits), (state) => hydrated(id, principal, state, resume)),
    reserve: (principal, key = principal) =>
      Effect.suspend(() => {
        if (closed) return Effect.succeed<HttpSession | Refused>({ _tag: "Refused", bound: "sessions", limit: settings.max, retryAfterMillis: 1000 })
        const id = newId()
        return Effect.map(shared.create(id, principal, limits, key), (refusal): HttpSession | Refused => refusal ?? add(id, principal, Date.now()).http)
      }),
    persist: (id) => {
      const entry = entries.get(id)
      // Unchanged at a glance (most requests): nothing to serialise, nothing to wait for.
      if (entry === undefined || asSnapshot(entry.http.session, entry.snapshot)) return Effect.void
      const state = stateOf(entry.http.session)
      const json = JSON.stringify(state)
      entry.snapshot = snapshotOf(entry.http.session)
      if (json === entry.saved) return Effect.void
      entry.saved = json
      // The next read is compared in full (this write may fail, and the store keep what it had).
      entry.read = undefined
      return shared.save(id, state, origin, limits)
    },
    forget: (id) =>
      Effect.suspend(() => {
        const entry = entries.get(id)
        if (entry !== undefined) end(entry, false)
        return shared.remove(id, origin)
      })
  })

  const shared = store === undefined || sharedOptions === undefined ? undefined : makeShared(store, sharedOptions.resume)

  return {
    settings,
    shared,
    create,
    find,
    remove: (id) => {
      const entry = entries.get(id)
      if (entry !== undefined) end(entry, true)
    },
    attach,
    size: () => entries.size,
    streams: () => streams,
    closeAll: () => {
      closed = true
      unlisten?.()
      // `end` deletes from the map while this walks it: Map iteration allows that.
      for (const entry of entries.values()) end(entry)
    }
  }
}
