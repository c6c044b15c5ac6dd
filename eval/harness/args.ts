/** `npm run eval` flags. */

export interface EvalOptions {
  readonly model: string
  readonly arms: ReadonlyArray<string>
  readonly tasks: ReadonlyArray<string> | "all"
  readonly seeds: number
  readonly window: number
  readonly maxUsd: number | undefined
  readonly jobs: number
  readonly out: string
  readonly report: string | undefined
  /** A folder of sweep runs (one folder per setting): write its sweep.md, run nothing. */
  readonly sweep: string | undefined
  readonly callTimeoutMs: number
  readonly maxCalls: number
  /** pi-context's guidance, warning and hard lines (tokens left) for the pi-context arm; undefined: its defaults. */
  readonly lines: { readonly guidanceLine: number; readonly warningLine: number; readonly hardLine: number } | undefined
}

export const usage = `npm run eval -- [flags]
  --model provider/id   a model from your Pi set-up (default: the built-in scripted agent)
  --arms a,b            pi-context, compaction, masking, none, ext:<path or package> (default: pi-context,compaction,masking)
  --tasks a,b | all     task names (default: all)
  --seeds N             seeds per task and arm (default: 3)
  --window N            the context window every arm sees, in tokens (default: 32000)
  --max-usd X           start no job once the runs so far cost X
  --jobs N              jobs run at once (default: 2)
  --out DIR             where results.jsonl, report.md, chart.svg and the sessions go (default: eval/results/<model>)
  --report DIR          rebuild report.md and chart.svg from DIR/results.jsonl, run nothing
  --sweep DIR           write DIR/sweep.md from the runs in DIR's folders (one setting each), run nothing
  --call-timeout S      abandon a model call silent for S seconds (default: 300)
  --max-calls N         stop a run after N model calls (default: 400)
  --lines G,W,H         pi-context's guidance, warning and hard lines in tokens left (default: its own, from the window)`

const number = (flag: string, value: string | undefined): number => {
  const parsed = Number(value)
  if (value === undefined || !Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number, got ${value ?? "nothing"}`)
  return parsed
}

const parseLines = (value: string | undefined): EvalOptions["lines"] => {
  if (value === undefined) return undefined
  const figures = value.split(",").map((part) => Math.floor(number("--lines", part.trim())))
  if (figures.length !== 3) throw new Error(`--lines takes three numbers (guidance, warning and hard line, tokens left), got ${value}`)
  const [guidanceLine, warningLine, hardLine] = figures as [number, number, number]
  if (!(guidanceLine > warningLine && warningLine > hardLine)) throw new Error(`--lines must fall: guidance > warning > hard, got ${value}`)
  return { guidanceLine, warningLine, hardLine }
}

export const parseArgs = (argv: ReadonlyArray<string>): EvalOptions => {
  const values = new Map<string, string>()
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!
    if (flag === "--help" || flag === "-h") throw new Error(usage)
    if (!flag.startsWith("--")) throw new Error(`unexpected argument ${flag}\n${usage}`)
    const [name, inline] = flag.slice(2).split("=", 2) as [string, string | undefined]
    const value = inline ?? argv[++index]
    if (value === undefined) throw new Error(`--${name} needs a value`)
    values.set(name, value)
  }
  const known = ["model", "arms", "tasks", "seeds", "window", "max-usd", "jobs", "out", "report", "call-timeout", "max-calls", "lines", "sweep"]
  for (const name of values.keys()) if (!known.includes(name)) throw new Error(`unknown flag --${name}\n${usage}`)
  const model = values.get("model") ?? "scripted"
  if (model !== "scripted" && !model.includes("/")) throw new Error(`--model takes provider/id, got ${model}`)
  const arms = (values.get("arms") ?? "pi-context,compaction,masking").split(",").map((arm) => arm.trim()).filter((arm) => arm !== "")
  for (const arm of arms) if (!["pi-context", "compaction", "masking", "none"].includes(arm) && !arm.startsWith("ext:")) throw new Error(`unknown arm ${arm} (pi-context, compaction, masking, none, ext:<path or package>)`)
  const tasks = values.get("tasks") ?? "all"
  return {
    model,
    arms,
    tasks: tasks === "all" ? "all" : tasks.split(",").map((task) => task.trim()),
    seeds: Math.floor(number("--seeds", values.get("seeds") ?? "3")),
    window: Math.floor(number("--window", values.get("window") ?? "32000")),
    maxUsd: values.has("max-usd") ? number("--max-usd", values.get("max-usd")) : undefined,
    jobs: Math.floor(number("--jobs", values.get("jobs") ?? "2")),
    out: values.get("out") ?? `eval/results/${model === "scripted" ? "scripted" : model.replaceAll("/", "_")}`,
    report: values.get("report"),
    sweep: values.get("sweep"),
    callTimeoutMs: number("--call-timeout", values.get("call-timeout") ?? "300") * 1000,
    maxCalls: Math.floor(number("--max-calls", values.get("max-calls") ?? "400")),
    lines: parseLines(values.get("lines"))
  }
}
