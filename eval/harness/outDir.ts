/**
 * Where a run's results go, and what the eval may delete there. The eval
 * marks each folder it makes with `eval-run.json` (its flags, when it began);
 * it writes only into a folder that is new, empty or so marked, and deletes
 * only the results and sessions of its own earlier run there. A run that is
 * not the default one, with no `--out`, goes to a new folder of its own, so
 * it never writes over a committed run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { type EvalOptions, parseArgs } from "./args.ts"

export const MarkerFile = "eval-run.json"

export interface RunMarker {
  readonly piContextEval: 1
  readonly startedAt: string
  /** The flags the run was started with: `--resume` runs the same jobs. */
  readonly argv: ReadonlyArray<string>
}

/** The flags of the default run, the one whose folder may hold a committed run. */
const isDefaultRun = (options: EvalOptions): boolean => {
  const defaults = parseArgs(options.model === "scripted" ? [] : ["--model", options.model])
  return options.tasks === "all" && options.tasksDir === undefined && options.arms.join(",") === defaults.arms.join(",") && options.seeds === defaults.seeds &&
    options.window === defaults.window && options.lines === undefined && options.maxCalls === defaults.maxCalls && options.maxUsd === undefined
}

const stamp = (now: Date) => now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z").replace("T", "-")

export const readMarker = (dir: string): RunMarker | undefined => {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MarkerFile), "utf8")) as RunMarker
    return marker.piContextEval === 1 && Array.isArray(marker.argv) ? marker : undefined
  } catch {
    return undefined
  }
}

export interface OutPlan {
  readonly dir: string
  /** Why the run does not go where `--out` or the default would have put it; said before the run starts. */
  readonly note: string | undefined
}

/** The folder this run writes to, refused (an Error with the fix) when it holds anything the eval did not make. */
export const planOut = (options: EvalOptions, invokedFrom: string, repoRoot: string, now = new Date()): OutPlan => {
  const asked = resolve(invokedFrom, options.out)
  if (!options.outGiven && !isDefaultRun(options)) {
    const dir = resolve(repoRoot, "eval", "results", "runs", `${options.model.replaceAll("/", "_")}-${stamp(now)}`)
    return { dir, note: `not the default run, so not written over ${relative(invokedFrom, asked) || "."}: results go to ${relative(invokedFrom, dir)}` }
  }
  checkWritable(asked, "--out")
  return { dir: asked, note: undefined }
}

/** Refuses a folder that is a file, or that holds files and no mark of an earlier eval run. */
export const checkWritable = (dir: string, flag: string): void => {
  if (!existsSync(dir)) return
  if (!statSync(dir).isDirectory()) throw new Error(`${flag} ${dir} is a file; name a folder (a new one is made)`)
  if (readdirSync(dir).length > 0 && readMarker(dir) === undefined) {
    throw new Error(`${flag} ${dir} holds files the eval did not write (it has no ${MarkerFile}); name a new or empty folder, or an earlier eval run's folder. Nothing was changed.`)
  }
}

/** Makes the folder and marks it, dropping its own earlier run's results and sessions (never anything else). */
export const startOut = (dir: string, argv: ReadonlyArray<string>, now = new Date()): void => {
  checkWritable(dir, "--out")
  mkdirSync(dir, { recursive: true })
  if (readMarker(dir) !== undefined) {
    rmSync(join(dir, "results.jsonl"), { force: true })
    rmSync(join(dir, "sessions"), { recursive: true, force: true })
  }
  const marker: RunMarker = { piContextEval: 1, startedAt: now.toISOString(), argv: [...argv] }
  writeFileSync(join(dir, MarkerFile), `${JSON.stringify(marker, null, 2)}\n`)
}

/** A stopped run's folder and the flags it was started with; refused when the folder is no eval run. */
export const resumeFrom = (dir: string): RunMarker => {
  if (!existsSync(dir)) throw new Error(`--resume ${dir}: no such folder; name the folder of the run to continue (its --out)`)
  const marker = readMarker(dir)
  if (marker === undefined) throw new Error(`--resume ${dir} is no eval run's folder (it has no ${MarkerFile}); name the folder of the run to continue`)
  return marker
}
