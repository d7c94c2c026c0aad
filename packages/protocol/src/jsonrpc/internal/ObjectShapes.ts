/**
 * The member-name sequences (shapes) of the objects `StrictJson` has parsed, remembered so that an
 * object of a shape seen before is checked for duplicate names without looking at its members.
 *
 * A shape is the list of an object's member names so far, in order, and has no two equal names:
 * {@link next} answers the shape one more name makes, or {@link duplicate} when the name is one of
 * the shape's, or `undefined` when the shape is not remembered (too many members, a long name, the
 * table full). The parser collects the members' values and calls {@link build} once per object,
 * which stores them without an own-property check per member. No code is generated: an
 * object-literal builder per shape made with `new Function` counted ~2.9k fewer instructions per
 * echo body (18.8k -> 15.9k), but code made from names a peer sends, compiled again whenever the
 * table refills, is not worth that, and a runtime that forbids it would run another path. Nothing
 * here calls user code.
 *
 * Bounds: at most {@link maxMembers} members and {@link maxNameLength} UTF-16 units per name in a
 * remembered shape and {@link maxShapes} shapes in all; when the table is full it is emptied and
 * filled again, so names an untrusted peer invents cannot grow it or keep out the shapes in use.
 * Names are kept as copies (never a slice that would hold the text they came from).
 *
 * @since 0.1.0
 */

/**
 * A remembered member-name sequence.
 *
 * @category models
 * @since 0.1.0
 */
export interface Shape {
  /** The last member's name (`""` for the empty shape). */
  readonly name: string
  /** Whether {@link name} can be matched against raw text: no quote, backslash or control character. */
  readonly plain: boolean
  /** All member names, in order. */
  readonly names: ReadonlyArray<string>
  /** The shape last reached from this one: the likely next member. */
  last: Shape | undefined
  /** The shape of the first member of the object that was last this shape's last member's value. */
  inner: Shape | undefined
  children: Map<string, Shape> | undefined
  /** Which filling of the table the shape belongs to: the shapes of an emptied table grow no more. */
  readonly generation: number
}

/**
 * What {@link next} answers for a name the shape already has.
 *
 * @category constants
 * @since 0.1.0
 */
export const duplicate: unique symbol = Symbol("duplicate")

/** The most members a remembered shape has. */
const maxMembers = 16

/** The longest member name a remembered shape has. */
const maxNameLength = 64

/** How many shapes are remembered before the table is emptied. */
const maxShapes = 1024

const makeShape = (name: string, names: ReadonlyArray<string>): Shape => ({
  name,
  plain: isPlain(name),
  names,
  last: undefined,
  inner: undefined,
  children: undefined,
  generation
})

const isPlain = (name: string): boolean => {
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k)
    if (c < 32 || c === 34 || c === 92) return false
  }
  return true
}

let generation = 0
let root = makeShape("", [])
let count = 0

/**
 * The empty shape, where every object starts.
 *
 * @category constructors
 * @since 0.1.0
 */
export const empty = (): Shape => root

/** A copy of `name` that holds no larger string (a property key is a flat, internalized string). */
const ownCopy = (name: string): string => {
  const holder: Record<string, number> = {}
  holder[name] = 0
  for (const key in holder) return key
  return name
}

/**
 * The shape `shape` followed by a member `name`: {@link duplicate} when `shape` has `name`,
 * `undefined` when that shape is not remembered.
 *
 * @category combinators
 * @since 0.1.0
 */
export const next = (shape: Shape, name: string): Shape | typeof duplicate | undefined => {
  const last = shape.last
  if (last !== undefined && last.name === name) return last
  const known = shape.children?.get(name)
  if (known !== undefined) {
    shape.last = known
    return known
  }
  const names = shape.names
  for (let k = 0; k < names.length; k++) if (names[k] === name) return duplicate
  if (names.length >= maxMembers || name.length > maxNameLength) return undefined
  if (shape.generation !== generation) return undefined
  if (count >= maxShapes) {
    generation++
    root = makeShape("", [])
    count = 0
    return undefined
  }
  count++
  const copy = ownCopy(name)
  const made = makeShape(copy, [...names, copy])
  ;(shape.children ??= new Map()).set(copy, made)
  shape.last = made
  return made
}

/**
 * The shape of one member `name` (an object's first), or `undefined` when it is not remembered;
 * `expected` when it is that shape.
 *
 * @category constructors
 * @since 0.1.0
 */
export const first = (name: string, expected: Shape | undefined): Shape | undefined => {
  if (expected !== undefined && expected.name === name && expected.generation === generation && expected.names.length === 1) {
    return expected
  }
  const shape = next(root, name)
  return shape === duplicate ? undefined : shape
}

/**
 * Stores `value` as the member `name` of `target`: an own data property, also for `"__proto__"`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const setMember = (target: Record<string, unknown>, name: string, value: unknown): void => {
  if (name === "__proto__") {
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true })
  } else {
    target[name] = value
  }
}

/**
 * The object of `shape` whose member values are `values[start]`, `values[start + 1]`, ….
 *
 * @category constructors
 * @since 0.1.0
 */
export const build = (shape: Shape, values: ReadonlyArray<unknown>, start: number): Record<string, unknown> => {
  const target: Record<string, unknown> = {}
  const names = shape.names
  for (let k = 0; k < names.length; k++) setMember(target, names[k]!, values[start + k])
  return target
}
