/**
 * A synchronous front for the asynchronous hyperjump compiler: a worker thread compiles, the
 * caller blocks on a shared signal (`Atomics.wait`) with a deadline, then reads the reply with
 * `receiveMessageOnPort`. A compile that misses its deadline terminates the thread (a fresh one is
 * started for the next schema), so compilation never hangs the catalog.
 *
 * @since 0.1.0
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import type { CompileReply, CompileRequest, WorkerData } from "./protocol.ts"

/** A thread's answer, or why it gave none. @since 0.1.0 */
export type Outcome =
  | { readonly _tag: "Compiled"; readonly compiled: string }
  | { readonly _tag: "Refused"; readonly message: string }
  | { readonly _tag: "TimedOut" }

const WORKER_URL = new URL("./compileWorker.ts", import.meta.url)

interface Running {
  readonly worker: Worker
  readonly port: MessagePort
  readonly signal: Int32Array
}

/**
 * The compile thread, started on construction and restarted after a timeout.
 *
 * @since 0.1.0
 */
export class CompileThread {
  readonly #catalog: WorkerData["catalog"]
  readonly #startupMillis: number
  #running: Running | undefined
  #nextId = 0

  constructor(catalog: WorkerData["catalog"], startupMillis: number) {
    this.#catalog = catalog
    this.#startupMillis = startupMillis
  }

  /** Starts the thread and loads the catalog; a refusal names the catalog document at fault. */
  start(): Outcome {
    return this.#call((id) => ({ id, init: true }), this.#startupMillis)
  }

  compile(schema: unknown, retrievalUri: string, deadlineMillis: number): Outcome {
    return this.#call((id): CompileRequest => ({ id, schema, retrievalUri }), deadlineMillis)
  }

  close(): void {
    const running = this.#running
    this.#running = undefined
    if (running !== undefined) {
      running.port.close()
      void running.worker.terminate()
    }
  }

  #spawn(): Running {
    const signal = new Int32Array(new SharedArrayBuffer(4))
    const { port1, port2 } = new MessageChannel()
    const data: WorkerData & { readonly port: MessagePort } = { signal: signal.buffer as SharedArrayBuffer, catalog: this.#catalog, port: port2 }
    const worker = new Worker(WORKER_URL, { workerData: data, transferList: [port2], stderr: false })
    // The thread serves only blocking calls: it must never keep the process alive on its own.
    worker.unref()
    port1.unref()
    // A crashed thread is noticed by the next call's deadline; the event itself carries nothing to do.
    worker.on("error", () => {})
    return { worker, port: port1, signal }
  }

  #call(message: (id: number) => object, deadlineMillis: number): Outcome {
    const fresh = this.#running === undefined
    const running = this.#running ?? (this.#running = this.#spawn())
    const id = this.#nextId++
    Atomics.store(running.signal, 0, 0)
    // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a MessagePort, not a window
    running.port.postMessage(message(id))
    // A fresh thread first loads hyperjump and the catalog: allow it the startup time as well.
    const deadline = deadlineMillis + (fresh ? this.#startupMillis : 0)
    if (Atomics.wait(running.signal, 0, 0, deadline) === "timed-out") {
      this.close()
      return { _tag: "TimedOut" }
    }
    for (;;) {
      const received = receiveMessageOnPort(running.port)
      if (received === undefined) {
        // The signal was set, so the reply was posted before it; only a dead thread gets here.
        this.close()
        return { _tag: "Refused", message: "the compile thread stopped unexpectedly" }
      }
      const reply = received.message as CompileReply
      if (reply.id !== id) continue
      return reply.ok ? { _tag: "Compiled", compiled: reply.compiled } : { _tag: "Refused", message: reply.message }
    }
  }
}
