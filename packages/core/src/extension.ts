/**
 * @snodo/core/extension: Extension authors: the extension seam (`Extension`, `Route`, `RouteTable`), the services a route
 * runs with (`Listen`, `RequestServices`, `CatalogViews`, `Observers`), the catalog's helpers and the MRTR pieces
 * an extension reuses.
 *
 * @since 0.1.0
 */
export * as AskedKeys from "./mrtr/AskedKeys.ts"
export * as Bulkhead from "./runtime/Bulkhead.ts"
export * as CatalogViews from "./runtime/CatalogViews.ts"
export * as Extension from "./routes/Extension.ts"
export * as InputCapabilities from "./mrtr/InputCapabilities.ts"
export * as JsonSchemaOf from "./catalog/JsonSchemaOf.ts"
export * as List from "./routes/List.ts"
export * as Listen from "./runtime/Listen.ts"
export * as Negotiation from "./pipeline/Negotiation.ts"
export * as Observers from "./runtime/Observers.ts"
export * as Pagination from "./catalog/Pagination.ts"
export * as RateWindow from "./runtime/RateWindow.ts"
export * as RequestServices from "./runtime/RequestServices.ts"
export * as RequestState from "./mrtr/RequestState.ts"
export * as Route from "./routes/Route.ts"
export * as RouteTable from "./routes/RouteTable.ts"
export * as Sampling from "./mrtr/Sampling.ts"
export * as SchemaOrigin from "./catalog/SchemaOrigin.ts"
export * as Semconv from "./observability/Semconv.ts"
export * as ServerSettings from "./runtime/ServerSettings.ts"
export * as Shaping from "./pipeline/Shaping.ts"
export * as ToolCall from "./routes/ToolCall.ts"
export * as TraceContext from "./observability/TraceContext.ts"
