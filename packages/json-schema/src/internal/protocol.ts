/**
 * Messages between `JsonSchemaValidator` and its compile thread.
 *
 * @since 0.1.0
 */

/** What the compile thread starts with. @since 0.1.0 */
export interface WorkerData {
  /** One `Int32` the thread sets to 1 after posting a reply. */
  readonly signal: SharedArrayBuffer
  /** The application's local catalog: retrieval URI and document. */
  readonly catalog: ReadonlyArray<readonly [uri: string, document: unknown]>
}

/** A schema to compile, under a fresh retrieval URI. @since 0.1.0 */
export interface CompileRequest {
  readonly id: number
  readonly schema: unknown
  readonly retrievalUri: string
}

/** The serialized hyperjump compiled schema, or why there is none. @since 0.1.0 */
export type CompileReply =
  | { readonly id: number; readonly ok: true; readonly compiled: string }
  | { readonly id: number; readonly ok: false; readonly message: string }
