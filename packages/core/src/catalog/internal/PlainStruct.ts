/**
 * Structs whose advertised JSON Schema is known to pass every check the catalog makes, without
 * deriving it: a struct of primitive fields (strings, numbers, booleans, `null`, string, boolean
 * or finite number literals; required or `optionalKey`), with no annotation, check, encoding or
 * rest anywhere. Its JSON Schema is `{ type: "object", properties: … }` whatever the fields are
 * called, it names no `x-mcp-header` parameter, and neither deriving it nor its JSON codec can
 * fail. The catalog derives such a tool's JSON Schemas when `tools/list` first reads them, not at
 * start (docs/startup.md); any other schema is derived and checked when the catalog is built.
 *
 * @internal
 */
import type { Schema, SchemaAST } from "effect"
import { keyword as headerKeyword } from "@snodo/protocol/methods/HeaderParams"

const bare = (ast: SchemaAST.AST): boolean =>
  ast.annotations === undefined && ast.checks === undefined && ast.encoding === undefined

const primitive = (ast: SchemaAST.AST): boolean => {
  if (!bare(ast)) return false
  const context = ast.context
  if (context !== undefined && (context.annotations !== undefined || context.constructorDefault !== undefined)) return false
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
      return true
    case "Literal":
      return typeof ast.literal === "string" || typeof ast.literal === "boolean" ||
        (typeof ast.literal === "number" && Number.isFinite(ast.literal))
    default:
      return false
  }
}

/**
 * Whether `schema` is such a struct (at least one field: an empty struct has its own advertised
 * form).
 *
 * @since 0.1.0
 */
export const isPlainStruct = (schema: Schema.Top): boolean => {
  const ast = schema.ast
  return ast._tag === "Objects" && bare(ast) && ast.context === undefined && ast.encodingChecks === undefined &&
    ast.indexSignatures.length === 0 && ast.propertySignatures.length > 0 &&
    ast.propertySignatures.every((property) =>
      typeof property.name === "string" && property.name !== headerKeyword && primitive(property.type)
    )
}
