/**
 * The bench scripts' command-line flags: `--name value` pairs read from `process.argv`.
 *
 *   const peers = textOption("--peers", "snodo,raw").split(",")
 *   const durationS = positiveOption("--duration", 5)
 */
const argv = process.argv.slice(2)

/** The value after `name`, or `fallback` when the flag (or its value) is absent. */
export const textOption = (name: string, fallback: string): string => {
  const at = argv.indexOf(name)
  return at < 0 ? fallback : argv[at + 1] ?? fallback
}

/** The number after `name`, or `fallback`; anything but a positive finite number is refused. */
export const positiveOption = (name: string, fallback: number): number => {
  const at = argv.indexOf(name)
  const value = at < 0 ? fallback : Number(argv[at + 1])
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

