/**
 * Renders `Results`: the stdout table, the targets, `docs/benchmarks.md` and the requests/s chart
 * (`docs/benchmarks-rps.svg`). Every figure of ours also appears as a ratio to each peer. The
 * start-up scenario's results (`StartupResults`, a run of their own) are a section of their own.
 *
 *   npx node bench/report.ts   # re-renders the docs from bench/results/latest.json and startup.json
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import {
  type ImportStyle,
  type Metric,
  type PeerId,
  peerIds,
  peerLabels,
  type Results,
  type StartupKey,
  type StartupResults,
  type StartupRow,
  type Transport
} from "./results.ts"

const others: ReadonlyArray<PeerId> = peerIds.filter((id) => id !== "snodo")

const formatValue = (value: number | undefined, unit: string): string => {
  if (value === undefined || !Number.isFinite(value)) return "n/a"
  if (unit === "req/s" || unit === "calls/s") return Math.round(value).toLocaleString("en-US")
  if (unit === "errors") return String(Math.round(value))
  if (unit === "MiB") return value.toFixed(1)
  if (value >= 100) return value.toFixed(0)
  if (value >= 10) return value.toFixed(1)
  return value.toFixed(value >= 1 ? 2 : 3)
}

/** ours ÷ peer; `undefined` when either side is missing or the peer's figure is 0. */
export const ratio = (metric: Metric, peer: PeerId): number | undefined => {
  const ours = metric.values.snodo
  const theirs = metric.values[peer]
  if (ours === undefined || theirs === undefined || !Number.isFinite(ours) || !Number.isFinite(theirs) || theirs === 0) return undefined
  return ours / theirs
}

const formatRatio = (value: number | undefined): string =>
  value === undefined ? "n/a" : `${value >= 10 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(3)}×`

const metricName = (metric: Metric): string => `${metric.label} (${metric.unit}, ${metric.better} is better)`

/**
 * The metrics of the main table: not those of an earlier start-up scenario (`startup.*`, before it
 * had a section of its own), nor error rows without errors.
 */
const shown = (results: Results): ReadonlyArray<Metric> =>
  results.metrics.filter((metric) =>
    !metric.key.startsWith("startup.") && (metric.unit !== "errors" || Object.values(metric.values).some((v) => v !== 0))
  )

const rows = (results: Results): ReadonlyArray<ReadonlyArray<string>> =>
  shown(results).map((metric) => [
    metricName(metric),
    ...peerIds.map((peer) => formatValue(metric.values[peer], metric.unit)),
    ...(metric.unit === "errors" ? others.map(() => "") : others.map((peer) => formatRatio(ratio(metric, peer))))
  ])

/**
 * What the table says of errors: their rows are shown only where a load had some, so say so
 * when every load that ran had none.
 */
const errorsLine = (results: Results): string | undefined => {
  const measured = results.metrics.filter((metric) => metric.unit === "errors" && Object.keys(metric.values).length > 0)
  if (measured.length === 0) return undefined
  const total = measured.reduce((sum, metric) => sum + Object.values(metric.values).reduce((a, b) => a + b, 0), 0)
  return total === 0
    ? `Errors (connection errors, timeouts, non-2xx responses): none in any of the ${measured.length} HTTP loads, for every peer.`
    : "Errors (connection errors, timeouts, non-2xx responses): the rows with errors in the table above."
}

const header: ReadonlyArray<string> = [
  "metric",
  ...peerIds.map((peer) => peerLabels[peer]),
  ...others.map((peer) => `snodo ÷ ${peerLabels[peer]}`)
]

export interface Target {
  readonly label: string
  readonly measured: string
  readonly met: boolean | undefined
}

const metricOf = (results: Results, key: string): Metric | undefined => results.metrics.find((metric) => metric.key === key)

export const targets = (results: Results): ReadonlyArray<Target> => {
  const rps = metricOf(results, "http.echo.c16.rps")
  const p99 = metricOf(results, "http.echo.c16.p99")
  const stdio = metricOf(results, "stdio.seq.mean")
  const atLeast = (metric: Metric | undefined, peer: PeerId, factor: number, label: string): Target => {
    const r = metric === undefined ? undefined : ratio(metric, peer)
    return { label, measured: formatRatio(r), met: r === undefined ? undefined : r >= factor }
  }
  const ours = p99?.values.snodo
  const stdioRatio = stdio === undefined ? undefined : ratio(stdio, "raw")
  const taskStores = (["pg", "sqlite"] as const).map((backend) =>
    atLeast(metricOf(results, `stores.${backend}.w3.rate`), "raw", 0.5, `task claim+complete, ${backend === "pg" ? "PostgreSQL" : "SQLite"}, 3 workers: store ≥ 0.5 × bare loop`))
  return [
    atLeast(rps, "raw", 0.5, "HTTP echo, 16 connections: snodo req/s ≥ 0.5 × raw floor"),
    atLeast(rps, "official", 10, "HTTP echo, 16 connections: snodo req/s ≥ 10 × official SDK"),
    atLeast(rps, "effect-ai", 4, "HTTP echo, 16 connections: snodo req/s ≥ 4 × effect/ai"),
    {
      label: "HTTP echo, 16 connections: snodo p99 ≤ 5 ms",
      measured: ours === undefined ? "n/a" : `${formatValue(ours, "ms")} ms`,
      met: ours === undefined || !Number.isFinite(ours) ? undefined : ours <= 5
    },
    {
      label: "stdio sequential tools/call: snodo mean ≤ 1.5 × stdio floor",
      measured: formatRatio(stdioRatio),
      met: stdioRatio === undefined ? undefined : stdioRatio <= 1.5
    },
    ...clientTargets(results),
    ...taskStores
  ]
}

/** What stdio clients need: a `server/discover` answer well inside the AI SDK's 1 s, every time. */
const clientTargets = (results: Results): ReadonlyArray<Target> => {
  const discover = metricOf(results, "clients.discover.npm")?.values.snodo
  const era = metricOf(results, "clients.aisdk.npm")
  const modern = era?.values.snodo
  const spawns = /of (\d+) fresh spawns/.exec(era?.label ?? "")?.[1]
  return [
    {
      label: "everything server via `npm run -s everything -- --stdio`: spawn → server/discover < 500 ms (median)",
      measured: discover === undefined ? "n/a" : `${formatValue(discover, "ms")} ms`,
      met: discover === undefined || !Number.isFinite(discover) ? undefined : discover < 500
    },
    {
      label: "everything server via npm run: the AI SDK stdio client negotiates 2026-07-28 in every spawn",
      measured: modern === undefined ? "n/a" : `${modern} of ${spawns ?? "?"}`,
      met: modern === undefined ? undefined : String(modern) === spawns
    }
  ]
}

const verdict = (met: boolean | undefined): string => met === undefined ? "not measured" : met ? "met" : "MISSED"

/** A plain-text table for stdout. */
export const textTable = (results: Results): string => {
  const all = [header, ...rows(results)]
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, column) => column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)).join("  ")
  const out = [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows(results).map(line), ""]
  const errors = errorsLine(results)
  if (errors !== undefined) out.push(errors, "")
  out.push("Targets (reported, not asserted):")
  for (const target of targets(results)) out.push(`  ${verdict(target.met).padEnd(12)} ${target.label}: ${target.measured}`)
  if (results.problems.length > 0) {
    out.push("", "Problems (these peers/scenarios were reported, not measured):")
    for (const problem of results.problems) out.push(`  ${peerLabels[problem.peer]} / ${problem.scenario}: ${problem.message}`)
  }
  return out.join("\n") + "\n"
}

// ---- start-up ---------------------------------------------------------------------------------

const transportLabel: Readonly<Record<Transport, string>> = { stdio: "stdio", http: "HTTP" }
const styleLabel: Readonly<Record<ImportStyle, string>> = { modules: "imports by module path", root: "root entries" }

const startupRow = (startup: StartupResults, role: StartupRow["role"], style?: ImportStyle): StartupRow | undefined =>
  startup.rows.find((row) => row.role === role && (style === undefined || row.style === style))

/** `row ÷ other` for one figure of the same run. */
const startupRatio = (row: StartupRow | undefined, other: StartupRow | undefined, key: StartupKey): number | undefined => {
  const ours = row?.values[key]
  const theirs = other?.values[key]
  return ours === undefined || theirs === undefined || theirs === 0 ? undefined : ours / theirs
}

const startupValue = (value: number | undefined, key: StartupKey): string =>
  value === undefined ? "n/a" : key.endsWith(".rss") ? `${value.toFixed(1)} MiB` : `${Math.round(value)} ms`

const cpuColumns: ReadonlyArray<readonly [StartupKey, string]> = [
  ["stdio.cold.cpu", "stdio, cold"],
  ["stdio.cached.cpu", "stdio, compile cache"],
  ["http.cold.cpu", "HTTP, cold"],
  ["http.cached.cpu", "HTTP, compile cache"]
]

const startupColumns: ReadonlyArray<readonly [StartupKey, string]> = [
  ["stdio.cold", "stdio, cold"],
  ["stdio.cached", "stdio, compile cache"],
  ["stdio.rss", "stdio, RSS idle"],
  ["http.cold", "HTTP, cold"],
  ["http.cached", "HTTP, compile cache"],
  ["http.rss", "HTTP, RSS idle"]
]

/** Every row: each figure with its ratio to the official SDK's of the same run. */
const startupBody = (startup: StartupResults, columns = startupColumns): ReadonlyArray<ReadonlyArray<string>> => {
  const official = startupRow(startup, "official")
  return startup.rows.map((row) => [
    row.label,
    ...columns.map(([key]) => {
      const value = row.values[key]
      if (value === undefined) return "n/a"
      const r = row === official ? undefined : startupRatio(row, official, key)
      return r === undefined ? startupValue(value, key) : `${startupValue(value, key)} (${formatRatio(r)})`
    })
  ])
}

/** snodo ÷ the Effect floor of the same import style, per figure. */
const floorBody = (startup: StartupResults, columns = startupColumns): ReadonlyArray<ReadonlyArray<string>> =>
  (["modules", "root"] as const).map((style) => [
    `snodo ÷ Effect floor, ${styleLabel[style]}`,
    ...columns.map(([key]) => formatRatio(startupRatio(startupRow(startup, "snodo", style), startupRow(startup, "floor", style), key)))
  ])

/** What the start-up scenario is held to (issue 35), reported, not asserted. */
export const startupTargets = (startup: StartupResults): ReadonlyArray<Target> => {
  const official = startupRow(startup, "official")
  const atMost = (row: StartupRow | undefined, other: StartupRow | undefined, key: StartupKey, factor: number, label: string): Target => {
    const r = startupRatio(row, other, key)
    return { label, measured: formatRatio(r), met: r === undefined ? undefined : r <= factor }
  }
  const readme = startupRow(startup, "snodo", startup.readmeStyle)
  const bundle = startupRow(startup, "bundle")
  return [
    ...(["modules", "root"] as const).flatMap((style) =>
      (["stdio", "http"] as const).map((transport) =>
        atMost(startupRow(startup, "snodo", style), startupRow(startup, "floor", style), `${transport}.cold`, 1.1,
          `start-up, ${transportLabel[transport]}, cold, ${styleLabel[style]}: snodo ≤ 1.10 × the Effect floor of the same style`)
      )
    ),
    ...(["stdio", "http"] as const).flatMap((transport) => [
      atMost(readme, official, `${transport}.cold`, 1.5, `start-up, ${transportLabel[transport]}, cold, as the README imports: snodo ≤ 1.5 × official SDK`),
      atMost(readme, official, `${transport}.cached`, 1.25, `start-up, ${transportLabel[transport]}, compile cache, as the README imports: snodo ≤ 1.25 × official SDK`),
      atMost(readme, official, `${transport}.rss`, 1.15, `RSS idle after start-up, ${transportLabel[transport]}, as the README imports: snodo ≤ 1.15 × official SDK`)
    ]),
    ...(["stdio", "http"] as const).map((transport) =>
      atMost(bundle, official, `${transport}.cold`, 0.5, `start-up, ${transportLabel[transport]}, cold, bundled: snodo ≤ 0.5 × official SDK`)
    )
  ]
}

const startupHeader: ReadonlyArray<string> = ["peer", ...startupColumns.map(([, label]) => label)]
const cpuHeader: ReadonlyArray<string> = ["peer", ...cpuColumns.map(([, label]) => `CPU, ${label}`)]

/** The start-up section for stdout. */
export const startupTable = (startup: StartupResults): string => {
  const all = [startupHeader, ...startupBody(startup), ...floorBody(startup), ...startupBody(startup, cpuColumns), ...floorBody(startup, cpuColumns)]
  const widths = startupHeader.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, column) => column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)).join("  ")
  const out = [
    "",
    `Start-up, as users start it (median of ${startup.runs} runs; ratios: ÷ official SDK, same run)`,
    line(startupHeader),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...startupBody(startup).map(line),
    ...floorBody(startup).map(line),
    "",
    line(cpuHeader),
    ...startupBody(startup, cpuColumns).map(line),
    ...floorBody(startup, cpuColumns).map(line),
    "",
    "Start-up targets (reported, not asserted):",
    ...startupTargets(startup).map((target) => `  ${verdict(target.met).padEnd(12)} ${target.label}: ${target.measured}`)
  ]
  if (startup.problems.length > 0) out.push("", "Start-up problems:", ...startup.problems.map(({ row, message }) => `  ${row}: ${message}`))
  return out.join("\n") + "\n"
}

/** The start-up section of `docs/benchmarks.md`. */
const startupMarkdown = (startup: StartupResults): ReadonlyArray<string> => {
  const official = startupRow(startup, "official")
  const m = startup.machine
  return [
    "## Start-up, as users start it",
    "",
    "Spawn → first `server/discover` answer of a one-tool server (`echo`), every peer started as its users start it: " +
    "a plain `.mjs` file in an application installed outside the repository, importing what its README shows. " +
    "A run of its own (`npm run bench -- --scenarios startup` writes only this section and `bench/results/startup.json`):",
    "",
    `- **Run:** ${startup.date} (${startup.elapsedS.toFixed(0)} s), \`${startup.command}\`, median of ${startup.runs} runs`,
    `- **Machine:** ${m.cpu}, ${m.cores} cores, Node ${m.node}`,
    `- **The app:** ${startup.app}`,
    "",
    `Each figure with its ratio to the official SDK's in the same run${official === undefined ? " (not measured in this run)" : ""}:`,
    "",
    markdownTable(startupHeader, startupBody(startup)),
    "",
    "What snodo adds to Effect itself: snodo's one-tool server ÷ the Effect floor that imports effect the same way, same run:",
    "",
    markdownTable(startupHeader, floorBody(startup)),
    "",
    "The CPU time each server used up to its first answer (user + system, every thread; steadier than the wall clock " +
    "on a busy machine, where a start also waits for a core), with the same ratios:",
    "",
    markdownTable(cpuHeader, [...startupBody(startup, cpuColumns), ...floorBody(startup, cpuColumns)]),
    "",
    "### Targets (reported, not asserted)",
    "",
    markdownTable(["target", "measured", "verdict"], startupTargets(startup).map((t) => [t.label, t.measured, verdict(t.met)])),
    "",
    ...(startup.problems.length === 0 ? [] : ["Problems:", "", ...startup.problems.map(({ row, message }) => `- ${row}: ${message.replaceAll("\n", " ")}`), ""]),
    "### How each starts",
    "",
    ...startup.rows.map((row) =>
      `- **${row.label}** (${row.sources.map((source) => `[\`${source.replace(/^.*\//, "")}\`](../${source})`).join(", ")}): ` +
      (["stdio", "http"] as const).map((transport) => `${transportLabel[transport]} \`${row.commands[transport] ?? "n/a"}\``).join("; ")
    ),
    "",
    "### Method",
    "",
    "- Timed from `spawn` (`node <file>`, the app's folder as working directory) to the first answer of `server/discover` " +
    "that offers 2026-07-28, the first request a 2026-07-28 client sends (the Vercel AI SDK waits 1 s for it): over stdio " +
    "the request is written at spawn; over HTTP a TCP connect is tried every millisecond until the port accepts, then the " +
    "request is posted (until one is answered). A `tools/call` of `echo` " +
    "is checked after the first start of each peer, untimed.",
    "- Cold: Node's compile cache disabled (`NODE_DISABLE_COMPILE_CACHE=1`). Compile cache: `NODE_COMPILE_CACHE` set to a " +
    "directory per peer, filled by one untimed start first (what `module.enableCompileCache()` gives from the second start on).",
    "- Every run starts every peer over both transports in both modes, the order rotating between runs (and the two modes " +
    "alternating) so that the machine's noise is shared; medians of the runs. RSS from `/proc/<pid>/status` 0.5 s after " +
    "the first cold start's answer.",
    "- The Effect floor is an Effect program without MCP: `NodeRuntime.runMain`, `NodeStdio` (stdio) or `node:http` (HTTP), " +
    "an Effect Schema decode of every message and canned answers. It is what any Effect server on Node loads before doing " +
    "anything of its own, so snodo ÷ Effect floor of the same import style is what snodo adds.",
    ""
  ]
}

const escapeCell = (cell: string): string => cell.replaceAll("|", "\\|")

const markdownTable = (head: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string =>
  [
    `| ${head.map(escapeCell).join(" | ")} |`,
    `|${head.map((_, i) => i === 0 ? "---" : "---:").join("|")}|`,
    ...body.map((row) => `| ${row.map(escapeCell).join(" | ")} |`)
  ].join("\n")

const escapeXml = (text: string): string => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")

const colors: Readonly<Record<PeerId, string>> = {
  snodo: "#2b6cb0",
  raw: "#a0aec0",
  "effect-http": "#cbd5e0",
  official: "#dd6b20",
  "effect-ai": "#38a169"
}

/** Grouped bars of requests/s per peer for every HTTP scenario. */
export const svgChart = (results: Results): string => {
  const groups = results.metrics.filter((metric) => metric.group === "http" && metric.unit === "req/s")
  const width = 820
  const height = 380
  const left = 70
  const right = 20
  const top = 50
  const bottom = 70
  const plotW = width - left - right
  const plotH = height - top - bottom
  const max = Math.max(1, ...groups.flatMap((metric) => Object.values(metric.values).filter((v) => Number.isFinite(v))))
  // A round tick step (1, 2 or 5 × 10^k) giving at most 6 intervals.
  const magnitude = 10 ** Math.floor(Math.log10(max / 6))
  const tick = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => max / candidate <= 6) ?? 10 * magnitude
  const intervals = Math.ceil(max / tick)
  const niceMax = intervals * tick
  const out: Array<string> = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">Requests/s over Streamable HTTP (higher is better), ${escapeXml(results.date.slice(0, 10))}</text>`
  ]
  for (let i = 0; i <= intervals; i++) {
    const value = tick * i
    const y = top + plotH - (plotH * value) / niceMax
    out.push(`<line x1="${left}" y1="${y}" x2="${width - right}" y2="${y}" stroke="#e2e8f0"/>`)
    out.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#4a5568">${Math.round(value).toLocaleString("en-US")}</text>`)
  }
  const groupW = plotW / Math.max(1, groups.length)
  const barW = Math.min(34, (groupW - 20) / peerIds.length)
  groups.forEach((metric, g) => {
    const x0 = left + g * groupW + (groupW - barW * peerIds.length) / 2
    peerIds.forEach((peer, p) => {
      const value = metric.values[peer]
      const x = x0 + p * barW
      if (value === undefined || !Number.isFinite(value)) {
        out.push(`<text x="${x + barW / 2}" y="${top + plotH - 4}" text-anchor="middle" font-size="10" fill="#718096">n/a</text>`)
        return
      }
      const h = (plotH * value) / niceMax
      out.push(`<rect x="${x + 2}" y="${top + plotH - h}" width="${barW - 4}" height="${h}" fill="${colors[peer]}"/>`)
      out.push(`<text x="${x + barW / 2}" y="${top + plotH - h - 4}" text-anchor="middle" font-size="10">${Math.round(value).toLocaleString("en-US")}</text>`)
    })
    out.push(`<text x="${left + g * groupW + groupW / 2}" y="${top + plotH + 18}" text-anchor="middle">${escapeXml(metric.label)}</text>`)
  })
  out.push(`<line x1="${left}" y1="${top + plotH}" x2="${width - right}" y2="${top + plotH}" stroke="#2d3748"/>`)
  peerIds.forEach((peer, p) => {
    const x = left + p * 150
    out.push(`<rect x="${x}" y="${height - 28}" width="12" height="12" fill="${colors[peer]}"/>`)
    out.push(`<text x="${x + 18}" y="${height - 18}">${escapeXml(peerLabels[peer])}</text>`)
  })
  out.push("</svg>")
  return out.join("\n") + "\n"
}

/** `docs/benchmarks.md`. */
export const markdown = (results: Results, startup?: StartupResults): string => {
  const m = results.machine
  const errors = errorsLine(results)
  const lines = [
    "# Benchmarks",
    "",
    "Generated by `npm run bench` (`bench/run.ts`) from `bench/results/latest.json`; do not edit by hand.",
    "Absolute numbers on these small machines move from run to run, so every figure of snodo is also given as a",
    "ratio to each peer **measured in the same run on the same machine**.",
    "",
    `- **Run:** ${results.date} (${results.elapsedS.toFixed(0)} s in all)`,
    `- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(0)} GiB, ${m.os}, Node ${m.node}`,
    `- **Command:** \`${results.command}\``,
    `- **Settings:** ${results.settings.durationS} s per HTTP load after ${results.settings.warmupS} s warm-up, ` +
    `best of ${results.settings.rounds} interleaved rounds; ` +
    `start-up is the median of ${results.settings.startupRuns} fresh starts; loader: ${results.settings.loader}`,
    "",
    "![Requests/s per peer](benchmarks-rps.svg)",
    "",
    "## Results",
    "",
    markdownTable(header, rows(results)),
    "",
    ...(errors === undefined ? [] : [errors, ""]),
    "## Targets (reported, not asserted)",
    "",
    markdownTable(["target", "measured", "verdict"], targets(results).map((t) => [t.label, t.measured, verdict(t.met)])),
    "",
    ...(startup === undefined ? [] : startupMarkdown(startup))
  ]
  if (results.problems.length > 0) {
    lines.push("## Problems", "", "A peer that answers wrongly or not at all is reported here, not measured.", "")
    for (const problem of results.problems) lines.push(`- **${peerLabels[problem.peer]}**, ${problem.scenario}: ${problem.message.replaceAll("\n", " ")}`)
    lines.push("")
  }
  lines.push(
    "## The peers",
    "",
    ...peerIds.map((peer) => `- **${peerLabels[peer]}**: ${results.peers[peer]}`),
    "",
    "## Method",
    "",
    ...results.notes.map((note) => `- ${note}`),
    ""
  )
  return lines.join("\n")
}

/** The committed start-up results, if any. */
const committedStartup = (root: URL): StartupResults | undefined => {
  const file = new URL("bench/results/startup.json", root)
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) as StartupResults : undefined
}

/** Writes the docs; without `startup`, the start-up section comes from `bench/results/startup.json`. */
export const writeReport = (results: Results, root: URL, startup?: StartupResults): void => {
  writeFileSync(new URL("docs/benchmarks.md", root), markdown(results, startup ?? committedStartup(root)))
  writeFileSync(new URL("docs/benchmarks-rps.svg", root), svgChart(results))
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url)
  const results = JSON.parse(readFileSync(new URL("bench/results/latest.json", root), "utf8")) as Results
  writeReport(results, root)
  process.stdout.write(textTable(results))
  const startup = committedStartup(root)
  if (startup !== undefined) process.stdout.write(startupTable(startup))
}
