/**
 * Where a run's results go, and what the eval may replace there. The eval
 * marks each folder it makes with `eval-run.json`: its flags, when it began,
 * and every file and run folder the run writes. It writes only into a folder
 * that is new, empty or so marked, and replaces there only what the marker
 * records it wrote: a file the run would write that the marker does not
 * record is refused, and a recorded run folder is deleted only when it holds
 * what a run folder holds (a run file, only when it reads as one). A marker
 * never makes a folder the eval's because it says so. A run that is not the default one, with no `--out`, goes to a
 * new folder of its own, so it never writes over a committed run.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path"
import { type EvalOptions, parseArgs } from "./args.ts"

export const MarkerFile = "eval-run.json"

/** The files every run writes beside its marker. */
export const RunFiles = ["results.jsonl", "report.md", "chart.svg"] as const

export interface RunMarker {
  readonly piContextEval: 1
  readonly startedAt: string
  /** The flags the run was started with: `--resume` runs the same jobs. */
  readonly argv: ReadonlyArray<string>
  /** What the run writes, relative to its folder: its files and its run folders (`sessions/<run>`). */
  readonly wrote?: ReadonlyArray<string>
}

/** The eval's own results, in this checkout: runs marked before markers recorded what they wrote live only here. */
const checkoutResults = resolve(import.meta.dirname, "..", "results")

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
    return marker.piContextEval === 1 && Array.isArray(marker.argv) && (marker.wrote === undefined || Array.isArray(marker.wrote)) ? marker : undefined
  } catch {
    return undefined
  }
}

/** What a run writes in `dir`: its files, and its run folders (absolute, under `dir/sessions`). */
export const runWrites = (dir: string, runDirs: ReadonlyArray<string>): ReadonlyArray<string> => [...RunFiles, ...runDirs.map((runDir) => relative(dir, runDir))]

/** A path a marker may record: a run file, or one folder right under sessions/. */
const isRunPath = (path: string): boolean => {
  if (isAbsolute(path) || normalize(path) !== path) return false
  const parts = path.split(sep)
  return (parts.length === 1 && (RunFiles as ReadonlyArray<string>).includes(path)) || (parts.length === 2 && parts[0] === "sessions" && parts[1] !== ".." && parts[1] !== ".")
}

/** What the marker of `dir` records the eval wrote there (a marker from before the record: the run's usual files, in the checkout's own results only). */
const recorded = (dir: string, marker: RunMarker): ReadonlySet<string> => {
  if (marker.wrote !== undefined) return new Set(marker.wrote.filter(isRunPath))
  const own = resolve(dir).startsWith(`${checkoutResults}${sep}`)
  if (!own) return new Set()
  const sessions = join(dir, "sessions")
  const runs = existsSync(sessions) && statSync(sessions).isDirectory() ? readdirSync(sessions).map((name) => join("sessions", name)) : []
  return new Set([...RunFiles, ...runs])
}

/** What a run leaves in its run folder; anything else there is not the eval's. */
const RunFolderEntries = new Set(["session", "project", "notes"])

/** How each run file the eval writes begins, or (results.jsonl) what every line of it is. */
const looksWritten: Readonly<Record<string, (text: string) => boolean>> = {
  "report.md": (text) => text.startsWith("# pi-context eval"),
  "chart.svg": (text) => text.startsWith("<svg"),
  "results.jsonl": (text) =>
    text.split("\n").filter((line) => line.trim() !== "").every((line) => {
      try {
        const run = JSON.parse(line) as { task?: unknown; arm?: unknown; seed?: unknown }
        return typeof run.task === "string" && typeof run.arm === "string" && typeof run.seed === "number"
      } catch {
        return false
      }
    })
}

/**
 * Whether `path` under `dir` holds what the eval would have put there: a run file that reads as one (a file the
 * user keeps under the same name does not), a run folder that holds only a run's parts.
 */
const holdsEvalOutput = (dir: string, path: string): boolean => {
  const full = join(dir, path)
  const stats = lstatSync(full)
  if (!path.startsWith(`sessions${sep}`)) return stats.isFile() && (looksWritten[path]?.(readFileSync(full, "utf8")) ?? false)
  return stats.isDirectory() && readdirSync(full, { withFileTypes: true }).every((entry) => entry.isDirectory() && RunFolderEntries.has(entry.name))
}

/** The paths of `writes` that exist in `dir` and the eval cannot replace: not recorded by its marker, or not what it wrote. */
const foreign = (dir: string, writes: ReadonlyArray<string>): ReadonlyArray<string> => {
  const marker = readMarker(dir)
  const own = marker === undefined ? new Set<string>() : recorded(dir, marker)
  return writes.filter((path) => lstatExists(join(dir, path))).filter((path) => !own.has(path) || !holdsEvalOutput(dir, path))
}

const lstatExists = (path: string): boolean => {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
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

/**
 * Refuses a folder that is a file, that holds files and no mark of an earlier eval run, or (given what the run will
 * write) that holds one of those paths the eval did not record writing.
 */
export const checkWritable = (dir: string, flag: string, writes: ReadonlyArray<string> = []): void => {
  if (!existsSync(dir)) return
  if (!statSync(dir).isDirectory()) throw new Error(`${flag} ${dir} is a file; name a folder (a new one is made)`)
  if (readdirSync(dir).length > 0 && readMarker(dir) === undefined) {
    throw new Error(`${flag} ${dir} holds files the eval did not write (it has no ${MarkerFile}); name a new or empty folder, or an earlier eval run's folder. Nothing was changed.`)
  }
  const theirs = foreign(dir, writes)
  if (theirs.length > 0) {
    throw new Error(
      `${flag} ${dir} holds ${theirs.slice(0, 5).join(", ")}${theirs.length > 5 ? ` and ${theirs.length - 5} more` : ""}, which its ${MarkerFile} does not record the eval writing ` +
        "(or which is not what the eval writes); the eval replaces only what it wrote. Name a new or empty folder. Nothing was changed."
    )
  }
}

/** Deletes what the eval wrote at `path` in `dir`, when it did: never anything it did not record and recognise. */
export const removeOwn = (dir: string, path: string): void => {
  if (!lstatExists(join(dir, path))) return
  const marker = readMarker(dir)
  if (marker === undefined || !recorded(dir, marker).has(path) || !holdsEvalOutput(dir, path)) {
    throw new Error(`${join(dir, path)} is not what the eval wrote there; it was left as it is`)
  }
  rmSync(join(dir, path), { recursive: true, force: true })
}

/**
 * Makes the folder and marks it with what this run writes (`runDirs`: its run folders), first deleting what its
 * own earlier run recorded and left (never anything else).
 */
export const startOut = (dir: string, argv: ReadonlyArray<string>, runDirs: ReadonlyArray<string> = [], now = new Date()): void => {
  const writes = runWrites(dir, runDirs)
  checkWritable(dir, "--out", writes)
  mkdirSync(dir, { recursive: true })
  const marker = readMarker(dir)
  if (marker !== undefined) {
    for (const path of recorded(dir, marker)) if (lstatExists(join(dir, path)) && holdsEvalOutput(dir, path)) rmSync(join(dir, path), { recursive: true, force: true })
    const sessions = join(dir, "sessions")
    if (existsSync(sessions) && readdirSync(sessions).length === 0) rmSync(sessions, { recursive: true })
  }
  const next: RunMarker = { piContextEval: 1, startedAt: now.toISOString(), argv: [...argv], wrote: writes }
  writeFileSync(join(dir, MarkerFile), `${JSON.stringify(next, null, 2)}\n`)
}

/** A stopped run's folder and the flags it was started with; refused when the folder is no eval run. */
export const resumeFrom = (dir: string): RunMarker => {
  if (!existsSync(dir)) throw new Error(`--resume ${dir}: no such folder; name the folder of the run to continue (its --out)`)
  const marker = readMarker(dir)
  if (marker === undefined) throw new Error(`--resume ${dir} is no eval run's folder (it has no ${MarkerFile}); name the folder of the run to continue`)
  return marker
}
