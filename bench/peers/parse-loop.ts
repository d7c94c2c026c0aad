/**
 * The parse loop `bench/callgrind-parse.ts` counts: parses the bench's `tools/call echo` body (5,000
 * copies, each with its own id) with the strict parser of the build (`StrictJson.parse`, as
 * `Envelope.decode` runs it) or with `JSON.parse` (`--json`), as many times as each line it reads
 * from stdin says, and answers each line with a line.
 *
 *   node bench/peers/parse-loop.ts [--json]
 */
import { StrictJson } from "@snodo/protocol"
import * as Readline from "node:readline"
import { echoBody } from "../wire.ts"

const json = process.argv.includes("--json")
const texts = Array.from({ length: 5000 }, (_, k) => echoBody(k + 1))
const parse = json
  ? (text: string): boolean => typeof JSON.parse(text) === "object"
  : (text: string): boolean => StrictJson.parse(text)._tag === "Ok"

let parsed = 0
Readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const count = Number(line)
  for (let k = 0; k < count; k++) {
    if (!parse(texts[k % texts.length]!)) throw new Error("refused")
    parsed++
  }
  process.stdout.write(`${parsed}\n`)
})
