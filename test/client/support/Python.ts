/**
 * The Python SDK `mcp` 2.3.0 for the interop tests: a virtual environment under
 * `node_modules/.cache/snodo-python-mcp`, made on first use with `python3 -m venv` and
 * `pip install mcp==2.3.0` (from whatever indexes pip is configured with, one retry each, so an
 * unreachable index costs seconds rather than minutes; about 30 s here), and reused while it holds
 * that version. Fails, saying what to install, when the machine
 * has no `python3` (≥ 3.10) or pip cannot get the package.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const venv = fileURLToPath(new URL("../../../node_modules/.cache/snodo-python-mcp", import.meta.url))
const python = `${venv}/bin/python`
export const version = "2.3.0"

const installed = (): boolean =>
  existsSync(python) &&
  spawnSync(python, ["-c", "import importlib.metadata as m; print(m.version('mcp'))"], { encoding: "utf8" }).stdout.trim() === version

/** The venv's interpreter, with `mcp` 2.3.0 importable. */
export const pythonWithMcp = (): string => {
  if (installed()) return python
  const steps: ReadonlyArray<ReadonlyArray<string>> = [
    ["python3", "-m", "venv", venv],
    [`${venv}/bin/pip`, "install", "--quiet", "--retries", "1", "--timeout", "15", `mcp==${version}`]
  ]
  for (const [command, ...args] of steps) {
    const run = spawnSync(command!, args, { encoding: "utf8", timeout: 600_000 })
    if (run.status !== 0) {
      throw new Error(`The Python SDK server needs python3 (>= 3.10) and pip install mcp==${version}: \`${[command, ...args].join(" ")}\` failed: ${run.error?.message ?? run.stderr.slice(-500)}`)
    }
  }
  if (!installed()) throw new Error(`pip install mcp==${version} did not install mcp ${version} in ${venv}`)
  return python
}
