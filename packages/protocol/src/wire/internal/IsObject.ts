/**
 * Whether a value is an object that is neither `null` nor an array: effect's `Predicate.isObject`,
 * written here. The protocol's build imported `effect/Predicate` for it alone, and Node resolves
 * every bare import of every module at every start (~1 M instructions each, bench/PROFILE.md).
 *
 * @internal
 */
export const isObject = (input: unknown): input is { [x: PropertyKey]: unknown } =>
  typeof input === "object" && input !== null && !Array.isArray(input)
