/**
 * @snodo/core/extension: Extension authors: the extension seam (`Extension`, `Route`, `RouteTable`), the services a route
 * runs with (`Listen`, `Bulkhead`), the catalog's helpers and the MRTR pieces
 * an extension reuses.
 *
 * @since 0.1.0
 */
export * as AskedKeys from "./mrtr/AskedKeys.ts"
export * as Bulkhead from "./runtime/Bulkhead.ts"
export * as Extension from "./routes/Extension.ts"
export * as InputCapabilities from "./mrtr/InputCapabilities.ts"
export * as List from "./routes/List.ts"
export * as Listen from "./runtime/Listen.ts"
export * as Negotiation from "./pipeline/Negotiation.ts"
export * as Pagination from "./catalog/Pagination.ts"
export * as RequestState from "./mrtr/RequestState.ts"
export * as Route from "./routes/Route.ts"
export * as RouteTable from "./routes/RouteTable.ts"
export * as Shaping from "./pipeline/Shaping.ts"
export * as ToolCall from "./routes/ToolCall.ts"
