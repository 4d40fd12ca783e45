/// Issue 4's metering target: the offline mix of N players with metering off and with it on
/// for every player, alternated (off, on, off, on, …) in the same run; the fastest wall time
/// of each side is compared. A meter that reads −160 dBFS at the end means metering did
/// not run, which fails the bench. Main thread.
enum MeteringBench {
    /// Metering may add at most this many percent to the mix time.
    static let targetPercent = 5.0

    static func run(inputs: [String], seconds: Double, repeats: Int, progress: (String) -> Void) -> BenchResult {
        var result = BenchResult(bench: "metering",
                                 title: "Metering: offline mix of \(inputs.count) players, \(Int(seconds.rounded())) s, off vs on (best of \(repeats) each, alternated)")
        var off: [ToolRun] = []
        var on: [ToolRun] = []
        for i in 0..<repeats {
            for metering in [false, true] {
                progress("  metering \(metering ? "on" : "off"), pass \(i + 1)…")
                var run = OfflineMixBench.run(inputs: inputs, seconds: seconds, metering: metering)
                run.bench = "metering"
                if let failure = run.failure {
                    result.failure = "metering \(metering ? "on" : "off"): \(failure)"
                    return result
                }
                run.extra.append(("pass", .int(i + 1)))
                result.lines.append(run.json)
                if metering { on.append(run) } else { off.append(run) }
            }
        }
        let bestOff = off.min { $0.wallSeconds < $1.wallSeconds }!
        let bestOn = on.min { $0.wallSeconds < $1.wallSeconds }!
        if let level = bestOn.extra.first(where: { $0.0 == "meter_avg_dbfs" })?.1, case let .number(db) = level, db <= -159 {
            result.failure = "metering was on but the first player's meter reads \(db) dBFS"
            return result
        }
        let addedWall = (bestOn.wallSeconds / bestOff.wallSeconds - 1) * 100
        let addedCPU = (bestOn.cpuSeconds / bestOff.cpuSeconds - 1) * 100
        for (name, runs) in [("off", off), ("on", on)] {
            let walls = runs.map { String(format: "%.2f", $0.wallSeconds) }.joined(separator: ", ")
            let cpus = runs.map { String(format: "%.2f", $0.cpuSeconds) }.joined(separator: ", ")
            result.table.append("metering \(name.padding(toLength: 3, withPad: " ", startingAt: 0)): wall s \(walls); cpu s \(cpus)")
        }
        result.table.append(String(format: "metering adds %+.1f%% wall, %+.1f%% cpu (best against best)", addedWall, addedCPU))
        result.lines.append(result.line([("tool", .string("tonearm")), ("ok", .bool(true)), ("players", .int(inputs.count)),
                                         ("audio_s", .number(seconds)), ("added_wall_percent", .number(addedWall)),
                                         ("added_cpu_percent", .number(addedCPU))]))
        result.checks.append(RatioCheck(what: "metering added mix time %", players: inputs.count, value: addedWall,
                                        target: targetPercent, goal: .atMost))
        result.checks.append(RatioCheck(what: "metering added cpu %", players: inputs.count, value: addedCPU,
                                        target: nil, goal: .atMost))
        return result
    }
}
