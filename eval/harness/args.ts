/** `npm run eval` flags. */
import type { CompactionSetting, MaskSetting } from "./settings.ts"
import { parseStandIn, type StandIn } from "../scripted/standIn.ts"

export interface EvalOptions {
  readonly model: string
  readonly arms: ReadonlyArray<string>
  readonly tasks: ReadonlyArray<string> | "all"
  /** A folder of the user's own tasks (one folder each, with a task.json) instead of the built-in ones. */
  readonly tasksDir: string | undefined
  readonly seeds: number
  readonly window: number
  readonly maxUsd: number | undefined
  readonly jobs: number
  readonly out: string
  /** Whether `--out` was given: a run that is not the default one never goes to the default folder, which may be a committed run. */
  readonly outGiven: boolean
  /** An earlier run's folder to continue: its own options, only the runs it has no result for. */
  readonly resume: string | undefined
  readonly report: string | undefined
  /** A folder of sweep runs (one folder per setting): write its sweep.md, run nothing. */
  readonly sweep: string | undefined
  readonly callTimeoutMs: number
  readonly summaryTimeoutMs: number
  readonly maxCalls: number
  /** pi-context's guidance, warning and hard lines (tokens left) for the pi-context arm; undefined: its defaults. */
  readonly lines: { readonly guidanceLine: number; readonly warningLine: number; readonly hardLine: number } | undefined
  /** Pi's compaction reserve and kept tokens for every arm that compacts; undefined: the window's. */
  readonly compaction: CompactionSetting | undefined
  /** The masking arms' kept turns and boundary step; undefined: their defaults. */
  readonly mask: MaskSetting | undefined
  /** The scripted agent's variant; undefined: its default. */
  readonly standIn: StandIn | undefined
}

export const usage = `npm run eval -- [flags]
  --model provider/id   a model from your Pi set-up (default: the built-in scripted agent)
  --arms a,b            pi-context, compaction, masking, hybrid (masking, compaction as its fallback), none,
                        fresh (the upper bound: no window pressure), ext:<path or package>
                        (default: pi-context,compaction,masking,hybrid)
  --tasks a,b | all     task names (default: all)
  --tasks-dir DIR       your own tasks instead of the built-in ones: one folder each, with a task.json (docs/eval.md)
  --seeds N             seeds per task and arm (default: 3)
  --window N            the context window every arm sees, in tokens (default: 32000)
  --max-usd X           start no job once the runs so far cost X
  --jobs N              jobs run at once (default: 2)
  --out DIR             where results.jsonl, report.md, chart.svg and the sessions go: a new or empty folder, or
                        an earlier run's (default: eval/results/<model> for the default run, else a new
                        folder under eval/results/runs/)
  --resume DIR          continue a stopped run in DIR: the runs it has no result for, with its own flags
  --report DIR          rebuild report.md and chart.svg from DIR/results.jsonl, run nothing
  --sweep DIR           write DIR/sweep.md from the runs in DIR's folders (one setting each), run nothing
  --call-timeout S      abandon a model call silent for S seconds (default: 300; raise it for a slow local server)
  --summary-timeout S   end a run whose compaction summary takes over S seconds (default: 1800)
  --max-calls N         stop a run after N model calls (default: 400)
  --lines G,W,H         pi-context's guidance, warning and hard lines in tokens left (default: its own, from the window)
  --compaction R,K      Pi's compaction reserve and kept recent tokens, for every arm that compacts (default: from the window)
  --mask N,K            the masking arms keep the last N turns' results, the boundary moving K turns at a time (default: 5,5)
  --stand-in V          the scripted agent's variant: edit or write, restating or silent, loss=P (comma-separated; default: edit,restating,loss=0)`

/** `--help`: the usage is the answer, on stdout, and the eval exits 0. */
export class HelpAsked extends Error {
  constructor() {
    super(usage)
  }
}

/** The smallest `--window`: Pi's system prompt, the tools and a task's first request take about 2,500 tokens, and the lines and compaction's reserve need room above them. */
export const MinWindow = 8_000

const number = (flag: string, value: string | undefined): number => {
  const parsed = Number(value)
  if (value === undefined || !Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number, got ${value ?? "nothing"}`)
  return parsed
}

/** A whole number from `min` to `max`: a seed count of 0.5 or 1e9 is a typo, refused before anything is touched. */
const wholeNumber = (flag: string, value: string, min: number, max: number, why = ""): number => {
  const parsed = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${flag} takes a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}${why}, got ${value}`)
  }
  return parsed
}

const parseLines = (value: string | undefined): EvalOptions["lines"] => {
  if (value === undefined) return undefined
  const figures = value.split(",").map((part) => wholeNumber("--lines", part.trim(), 1, 10_000_000))
  if (figures.length !== 3) throw new Error(`--lines takes three numbers (guidance, warning and hard line, tokens left), got ${value}`)
  const [guidanceLine, warningLine, hardLine] = figures as [number, number, number]
  if (!(guidanceLine > warningLine && warningLine > hardLine)) throw new Error(`--lines must fall: guidance > warning > hard, got ${value}`)
  return { guidanceLine, warningLine, hardLine }
}

const Known = ["model", "arms", "tasks", "tasks-dir", "seeds", "window", "max-usd", "jobs", "out", "report", "call-timeout", "summary-timeout", "max-calls", "lines", "sweep", "resume", "compaction", "mask", "stand-in"]

/** Two whole numbers, comma-separated: `--compaction R,K` and `--mask N,K`. */
const parsePair = (flag: string, value: string | undefined, names: string): readonly [number, number] | undefined => {
  if (value === undefined) return undefined
  const figures = value.split(",").map((part) => wholeNumber(flag, part.trim(), 1, 10_000_000))
  if (figures.length !== 2) throw new Error(`${flag} takes two numbers (${names}), got ${value}`)
  return figures as unknown as readonly [number, number]
}

const compactionSetting = (pair: readonly [number, number] | undefined): CompactionSetting | undefined =>
  pair === undefined ? undefined : { reserveTokens: pair[0], keepRecentTokens: pair[1] }

const maskSetting = (pair: readonly [number, number] | undefined): MaskSetting | undefined =>
  pair === undefined ? undefined : { keepTurns: pair[0], step: pair[1] }

export const parseArgs = (argv: ReadonlyArray<string>): EvalOptions => {
  const values = new Map<string, string>()
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!
    if (flag === "--help" || flag === "-h") throw new HelpAsked()
    if (!flag.startsWith("--")) throw new Error(`unexpected argument ${flag}\n${usage}`)
    const [name, inline] = flag.slice(2).split("=", 2) as [string, string | undefined]
    // A flag is named as unknown before its value is asked for.
    if (!Known.includes(name)) throw new Error(`unknown flag --${name}\n${usage}`)
    const value = inline ?? argv[++index]
    if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`)
    values.set(name, value)
  }
  const model = values.get("model") ?? "scripted"
  if (model !== "scripted" && !model.includes("/")) throw new Error(`--model takes provider/id, got ${model}`)
  const arms = (values.get("arms") ?? "pi-context,compaction,masking,hybrid").split(",").map((arm) => arm.trim()).filter((arm) => arm !== "")
  if (arms.length === 0) throw new Error("--arms names no arm (pi-context, compaction, masking, hybrid, none, fresh, ext:<path or package>)")
  for (const arm of arms) if (!["pi-context", "compaction", "masking", "hybrid", "none", "fresh"].includes(arm) && !/^ext:./.test(arm)) throw new Error(`unknown arm ${arm} (pi-context, compaction, masking, hybrid, none, fresh, ext:<path or package>)`)
  const tasks = values.get("tasks") ?? "all"
  return {
    model,
    arms,
    tasks: tasks === "all" ? "all" : tasks.split(",").map((task) => task.trim()),
    tasksDir: values.get("tasks-dir"),
    seeds: wholeNumber("--seeds", values.get("seeds") ?? "3", 1, 1_000),
    window: wholeNumber("--window", values.get("window") ?? "32000", MinWindow, 10_000_000, " (a smaller window cannot hold a task's first request)"),
    maxUsd: values.has("max-usd") ? number("--max-usd", values.get("max-usd")) : undefined,
    jobs: wholeNumber("--jobs", values.get("jobs") ?? "2", 1, 64),
    out: values.get("out") ?? `eval/results/${model === "scripted" ? "scripted" : model.replaceAll("/", "_")}`,
    outGiven: values.has("out"),
    resume: values.get("resume"),
    report: values.get("report"),
    sweep: values.get("sweep"),
    callTimeoutMs: wholeNumber("--call-timeout", values.get("call-timeout") ?? "300", 1, 86_400) * 1000,
    summaryTimeoutMs: wholeNumber("--summary-timeout", values.get("summary-timeout") ?? "1800", 1, 86_400) * 1000,
    maxCalls: wholeNumber("--max-calls", values.get("max-calls") ?? "400", 1, 100_000),
    lines: parseLines(values.get("lines")),
    compaction: compactionSetting(parsePair("--compaction", values.get("compaction"), "reserve, kept recent tokens")),
    mask: maskSetting(parsePair("--mask", values.get("mask"), "kept turns, boundary step")),
    standIn: values.has("stand-in") ? parseStandIn(values.get("stand-in")!) : undefined
  }
}
