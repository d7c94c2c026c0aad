import { startStdio } from "./probe.ts"
import { installCleanup } from "./children.ts"
installCleanup()
const variants: Record<string, [string, Array<string>, Record<string, string>]> = JSON.parse(process.argv[2]!)
const runs = Number(process.argv[3] ?? 7)
const times: Record<string, Array<number>> = {}
for (let r = 0; r < runs; r++) {
  for (const [name, [script, args, env]] of Object.entries(variants)) {
    const s = await startStdio(script, args, { env })
    s.child.process.stdin?.end()
    await s.child.stop()
    ;(times[name] ??= []).push(s.startupMs)
  }
}
for (const [name, t] of Object.entries(times)) {
  const sorted = t.toSorted((a, b) => a - b)
  console.log(name.padEnd(24), "median", sorted[Math.floor(sorted.length / 2)]!.toFixed(0), "min", sorted[0]!.toFixed(0))
}
