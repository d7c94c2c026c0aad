/** The shape of `bench/results/latest.json`, shared by the runner and the report. */

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
