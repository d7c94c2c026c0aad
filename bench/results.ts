/** The shapes of `bench/results/latest.json` and `bench/results/startup.json`, shared by the runner and the report. */

export const peerIds = ["snodo", "raw", "effect-http", "official", "effect-ai"] as const
export type PeerId = typeof peerIds[number]

export const peerLabels: Readonly<Record<PeerId, string>> = {
  snodo: "snodo",
  raw: "raw floor",
  "effect-http": "Effect floor",
  official: "official SDK 2.4.0",
  "effect-ai": "effect/ai 4.1.0"
}

export interface Metric {
  readonly key: string
  readonly group: string
  readonly label: string
  readonly unit: string
  readonly better: "higher" | "lower"
  readonly values: Partial<Record<PeerId, number>>
}

export interface Problem {
  readonly peer: PeerId
  readonly scenario: string
  readonly message: string
}

export interface Results {
  readonly date: string
  readonly command: string
  readonly machine: {
    readonly cpu: string
    readonly cores: number
    readonly memoryGiB: number
    readonly os: string
    readonly node: string
  }
  readonly settings: {
    readonly durationS: number
    readonly warmupS: number
    readonly loader: string
    readonly startupRuns: number
    readonly rounds: number
  }
  readonly peers: Readonly<Record<PeerId, string>>
  readonly metrics: ReadonlyArray<Metric>
  readonly problems: ReadonlyArray<Problem>
  readonly notes: ReadonlyArray<string>
  readonly elapsedS: number
}

export type Transport = "stdio" | "http"
export type StartMode = "cold" | "cached"
/** How a program imports effect and snodo: by module path (`effect/Effect`), or from the root entries (`effect`). */
export type ImportStyle = "modules" | "root"
/** What a start-up row is: the official SDK, the Effect floor, snodo's one-tool server, its bundle, the everything server. */
export type StartupRole = "official" | "floor" | "snodo" | "bundle" | "everything"
/**
 * A figure of a start-up row: `stdio.cold`, `stdio.cached` (ms to the first answer),
 * `stdio.cold.cpu`, `stdio.cached.cpu` (ms of CPU to it), `stdio.rss` (MiB), and HTTP's.
 */
export type StartupKey = `${Transport}.${StartMode | "rss"}` | `${Transport}.${StartMode}.cpu`

export interface StartupRow {
  readonly id: string
  readonly role: StartupRole
  readonly style?: ImportStyle
  readonly label: string
  /** The peer's source file(s), for the report to link. */
  readonly sources: ReadonlyArray<string>
  /** How it starts, per transport: the command line, and where. */
  readonly commands: Partial<Record<Transport, string>>
  /** Medians of the runs (ms, wall clock and CPU), RSS once idle (MiB). */
  readonly values: Partial<Record<StartupKey, number>>
  /** Every timed start (ms), in run order. */
  readonly samples: Partial<Record<StartupKey, ReadonlyArray<number>>>
}

/** The start-up scenario's run (`bench/startup.ts`): its own date and command, its ratios within it. */
export interface StartupResults {
  readonly date: string
  readonly command: string
  readonly machine: Results["machine"]
  readonly runs: number
  /** The import style README.md shows; its targets are reported. */
  readonly readmeStyle: ImportStyle
  /** How the app the peers run in was built. */
  readonly app: string
  readonly rows: ReadonlyArray<StartupRow>
  readonly problems: ReadonlyArray<{ readonly row: string; readonly message: string }>
  readonly elapsedS: number
}
