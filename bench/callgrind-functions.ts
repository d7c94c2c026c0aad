/**
 * A callgrind dump split by function: each function's own instructions (calls excluded), with
 * V8's generated code named through the perf map the server wrote (`--perf-basic-prof`:
 * `/tmp/perf-PID.map`, one `start size name` line per code object). Callgrind knows no symbol for
 * generated code and names such a function by an address in it; the map says whose code that is.
 * What has no name in the map (code collected before the dump) stays an address.
 *
 * Used by `bench/callgrind.ts --functions N`.
 */
import * as Fs from "node:fs"

interface Code {
  readonly start: number
  readonly end: number
  readonly name: string
}

/** The perf map's code objects, by start address; later lines (code made later) win an overlap. */
const readMap = (file: string): ReadonlyArray<Code> => {
  if (!Fs.existsSync(file)) return []
  const codes: Array<Code> = []
  for (const line of Fs.readFileSync(file, "utf8").split("\n")) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line)
    if (match === null) continue
    const start = Number.parseInt(match[1]!, 16)
    codes.push({ start, end: start + Number.parseInt(match[2]!, 16), name: match[3]! })
  }
  return codes.toSorted((a, b) => a.start - b.start)
}

const nameAt = (codes: ReadonlyArray<Code>, address: number): string | undefined => {
  let low = 0
  let high = codes.length - 1
  let found: Code | undefined
  while (low <= high) {
    const middle = (low + high) >> 1
    const code = codes[middle]!
    if (code.start <= address) {
      found = code
      low = middle + 1
    } else high = middle - 1
  }
  return found !== undefined && address < found.end ? found.name : undefined
}

/**
 * The functions of a dump by their own instructions, most first, with V8's code named by
 * `mapFile`; each name with its share of `total`.
 */
export const byFunction = (dumpFile: string, mapFile: string): ReadonlyArray<{ readonly name: string; readonly instructions: number }> => {
  const names = new Map<string, string>()
  const self = new Map<string, number>()
  let current = ""
  let afterCalls = false
  for (const line of Fs.readFileSync(dumpFile, "utf8").split("\n")) {
    if (line.startsWith("fn=")) {
      const match = /^fn=\((\d+)\)(?: (.*))?$/.exec(line)
      if (match !== null) {
        if (match[2] !== undefined) names.set(match[1]!, match[2])
        current = names.get(match[1]!) ?? match[1]!
      } else current = line.slice(3)
      afterCalls = false
      continue
    }
    if (line.startsWith("cfn=")) {
      const match = /^cfn=\((\d+)\)(?: (.*))?$/.exec(line)
      if (match !== null && match[2] !== undefined) names.set(match[1]!, match[2])
      continue
    }
    if (line.startsWith("calls=")) {
      afterCalls = true
      continue
    }
    const first = line.charCodeAt(0)
    // A cost line: a position (a number, `+n`, `-n` or `*`), then the instructions.
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      if (afterCalls) {
        afterCalls = false
        continue
      }
      const parts = line.split(" ")
      const cost = Number(parts[1] ?? 0)
      if (cost > 0) self.set(current, (self.get(current) ?? 0) + cost)
    }
  }
  const codes = readMap(mapFile)
  const resolved = new Map<string, number>()
  for (const [name, cost] of self) {
    const address = /^0x([0-9a-f]+)$/.exec(name)
    const named = address === null ? name : nameAt(codes, Number.parseInt(address[1]!, 16)) ?? "(V8 code, no longer mapped)"
    resolved.set(named, (resolved.get(named) ?? 0) + cost)
  }
  return [...resolved].map(([name, instructions]) => ({ name, instructions })).toSorted((a, b) => b.instructions - a.instructions)
}

/**
 * Writes the `top` functions of a counted server's main thread, in instructions per unit (of
 * `units` requests or calls), then removes what `--perf-basic-prof` left: the perf map and V8's
 * `isolate-…-PID-v8.log` in the working directory.
 */
export const report = (mainFile: string, pid: number | undefined, units: number, top: number): void => {
  const mapFile = `/tmp/perf-${pid}.map`
  for (const { instructions, name } of byFunction(mainFile, mapFile).slice(0, top)) {
    process.stdout.write(`${(instructions / units).toFixed(0).padStart(8)}  ${name}\n`)
  }
  Fs.rmSync(mapFile, { force: true })
  for (const log of Fs.readdirSync(".").filter((name) => name.endsWith(`-${pid}-v8.log`))) Fs.rmSync(log, { force: true })
}
