/**
 * A `subscriptions/listen` stream's machinery (internal/ListenStream), loaded by its `import()`:
 * when a runtime that serves listen (it has a hub) is built, or at `Listen.run`'s first stream.
 * A server without a hub does not load (parse) it.
 *
 * @internal
 */
import * as LazyModule from "../../pipeline/internal/LazyModule.ts"

export const listenStream = LazyModule.make(() => import("./ListenStream.ts"))
