/**
 * The services a handler runs with: the application's (captured when the server's Layer was
 * built), the transport's, and the request's own (`McpRequest`, `Progress`, `McpLog`, in an
 * MRTR round `McpInput`, and when the request is traced its span as the `ParentSpan`).
 *
 * The transport's context with the application's services over it is merged once per transport
 * context (a stdio connection, an HTTP server: the same object for every request), so a request
 * only adds its own services on top instead of copying every service.
 *
 * @since 0.1.0
 */
import { Context, Effect, Tracer } from "effect"
import { McpInput, type Session } from "../../mrtr/internal/McpInput.ts"
import type { RequestMeta } from "../../pipeline/RequestMeta.ts"
import type { Observers } from "./Observers.ts"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { McpLog, makeLogger } from "../McpLog.ts"
import { McpRequest } from "../McpRequest.ts"
import type { Principal } from "../Principal.ts"
import { makeReporter, Progress } from "../Progress.ts"
import type { RequestContext } from "../RequestContext.ts"
import type { Settings } from "./ServerSettings.ts"

/**
 * Runs a handler's effect with the request's services and, in an MRTR round, that round's session.
 *
 * @category models
 * @since 0.1.0
 */
export type ProvideWith = <A, E>(effect: Effect.Effect<A, E, unknown>, session: Session | undefined) => Effect.Effect<A, E>

/**
 * The request services of one request, for handlers run by `provide`.
 *
 * @category models
 * @since 0.1.0
 */
export type Provider = (
  request: Envelope.Request,
  meta: RequestMeta,
  context: RequestContext,
  principal: Principal["Service"]
) => ProvideWith

/**
 * A provider over the application's services.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  settings: Settings,
  application: Context.Context<never>,
  observers?: Observers | undefined
): Provider => {
  const withApplication = new WeakMap<Context.Context<never>, Context.Context<never>>()
  const applicationOver = (transport: Context.Context<never>): Context.Context<never> => {
    let merged = withApplication.get(transport)
    if (merged === undefined) {
      merged = Context.merge(transport, application)
      withApplication.set(transport, merged)
    }
    return merged
  }
  return (request, meta, context, principal) => {
    const reporter = makeReporter(meta.progressToken, context.sink, settings.progress, observers?.progress(request.id))
    const logger = makeLogger(settings.logging, meta.logLevel, context.sink)
    const current: McpRequest["Service"] = {
      id: request.id,
      method: request.method,
      params: request.params,
      meta,
      transport: context.transport,
      principal
    }
    // Handlers' requirements are erased in the catalog; `McpServer.layer` proved at the type level
    // that the captured context plus the request services satisfy them.
    return <A, E>(effect: Effect.Effect<A, E, unknown>, session: Session | undefined) =>
      Effect.ensuring(
        Effect.updateContext(effect as Effect.Effect<A, E, never>, (transport: Context.Context<never>) => {
          const services = Context.add(Context.add(Context.add(applicationOver(transport), McpRequest, current), Progress, reporter), McpLog, logger)
          const traced = context.span === undefined ? services : Context.add(services, Tracer.ParentSpan, context.span)
          return session === undefined ? traced : Context.add(traced, McpInput, session)
        }),
        reporter.close
      )
  }
}
