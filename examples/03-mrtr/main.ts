/**
 * Multi-round requests over stdio: handlers that ask the user as they go.
 *
 *   npx node examples/03-mrtr/main.ts
 *
 * With `SNODO_MRTR_KEYS="k1:<base64 of 32+ random bytes>"` the request state is sealed with that
 * key (restarts and other instances with the same keys accept it); without it the server seals
 * with an ephemeral key and says so on stderr.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Keyring } from "@snodo/core"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect, Layer } from "effect"
import { Server } from "./server.ts"

const Keys = process.env["SNODO_MRTR_KEYS"] === undefined ? Layer.empty : Keyring.layerConfig()

StdioTransport.run().pipe(
  Effect.provide(Server.layer.pipe(Layer.provide(Keys))),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
