/**
 * `npm run bench:profile -- <dir or .cpuprofile files>`: where the CPU time
 * of the Medusa instances went, from the V8 CPU profiles that
 * `npm run bench:load -- --cpu-profile` leaves in its log directory.
 *
 * Prints, over all profiles given: self time by package (the plugin's own
 * files each on their own line), and the plugin functions whose synchronous
 * calls (everything below them on the stack) took the most time. Async work
 * started by a plugin function continues on a fresh stack, so the second
 * table undercounts it; the first counts every sample once.
 */
import fs from "node:fs"
import path from "node:path"

type CallFrame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] }
type Profile = {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

const ROOT = path.resolve(__dirname, "..")

function files(args: string[]): string[] {
  return args.flatMap((arg) =>
    fs.statSync(arg).isDirectory()
      ? fs
          .readdirSync(arg)
          .filter((name) => name.endsWith(".cpuprofile"))
          .map((name) => path.join(arg, name))
      : [arg]
  )
}

/** The bucket a frame's self time belongs to. */
export function bucketOf(frame: CallFrame): string {
  const { url, functionName } = frame
  if (!url) return functionName.startsWith("(") ? functionName : "(native)"
  const file = url.replace(/^file:\/\//, "")
  if (file.startsWith("node:")) return "node internals"
  const modules = file.lastIndexOf("/node_modules/")
  if (modules >= 0) {
    const parts = file.slice(modules + "/node_modules/".length).split("/")
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]
  }
  if (file.startsWith(ROOT)) return `plugin ${path.relative(ROOT, file)}`
  return "other"
}

const isPlugin = (frame: CallFrame) => bucketOf(frame).startsWith("plugin ")

function summarize(profiles: Profile[]) {
  const self = new Map<string, number>()
  const underPlugin = new Map<string, number>()
  let total = 0
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    const parent = new Map<number, number>()
    for (const node of profile.nodes) {
      for (const child of node.children ?? []) parent.set(child, node.id)
    }
    // The nearest plugin frame at or above each node, computed once per node.
    const nearestPlugin = new Map<number, string | null>()
    const pluginAbove = (id: number): string | null => {
      const known = nearestPlugin.get(id)
      if (known !== undefined) return known
      const node = byId.get(id)!
      const here = isPlugin(node.callFrame)
        ? `${node.callFrame.functionName || "(anonymous)"} ${bucketOf(node.callFrame).slice(7)}:${node.callFrame.lineNumber + 1}`
        : parent.has(id)
          ? pluginAbove(parent.get(id)!)
          : null
      nearestPlugin.set(id, here)
      return here
    }
    profile.samples.forEach((id, i) => {
      const ms = (profile.timeDeltas[i] ?? 0) / 1000
      total += ms
      const bucket = bucketOf(byId.get(id)!.callFrame)
      self.set(bucket, (self.get(bucket) ?? 0) + ms)
      const plugin = pluginAbove(id)
      if (plugin) underPlugin.set(plugin, (underPlugin.get(plugin) ?? 0) + ms)
    })
  }
  return { self, underPlugin, total }
}

function table(title: string, rows: Map<string, number>, total: number, limit: number) {
  const lines = [`${title}`]
  const sorted = [...rows.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit)
  for (const [name, ms] of sorted) {
    lines.push(
      `  ${(ms / 1000).toFixed(1).padStart(8)} s ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`
    )
  }
  return lines.join("\n")
}

function main() {
  const given = process.argv.slice(2)
  if (given.length === 0) {
    process.stderr.write("usage: npm run bench:profile -- <dir with .cpuprofile files | files...>\n")
    process.exit(2)
  }
  const list = files(given)
  if (list.length === 0) throw new Error(`no .cpuprofile files in ${given.join(" ")}`)
  const profiles = list.map((file) => JSON.parse(fs.readFileSync(file, "utf8")) as Profile)
  const { self, underPlugin, total } = summarize(profiles)
  const busy = total - (self.get("(idle)") ?? 0)
  const pluginSelf = [...self.entries()]
    .filter(([name]) => name.startsWith("plugin "))
    .reduce((sum, [, ms]) => sum + ms, 0)
  process.stdout.write(
    [
      `${list.length} profiles, ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s not idle; percentages are of the time not idle`,
      `plugin files' own code: ${(pluginSelf / 1000).toFixed(1)} s (${((100 * pluginSelf) / busy).toFixed(1)}%)`,
      table("self time by package", new Map([...self].filter(([name]) => name !== "(idle)")), busy, 30),
      table("time below each plugin function (synchronous stacks only)", underPlugin, busy, 25),
    ].join("\n\n") + "\n"
  )
}

if (require.main === module) main()
