import Foundation

/// Collects the measurements of a run: prints each JSON line to stdout as soon as it is
/// known (flushed, so a long run can be followed), and at the end a readable table to
/// stderr, so stdout stays pure JSON lines. Main thread.
final class BenchReport {
    private var runs: [ToolRun] = []
    private var checks: [RatioCheck] = []
    private var realtime: [RealtimeResult] = []
    private var results: [BenchResult] = []
    /// Something could not run (a tool failed, or tonearm did).
    private(set) var hadFailures = false

    func emit(_ line: JSONLine) {
        FileHandle.standardOutput.write(Data((line.text + "\n").utf8))
    }

    func add(_ run: ToolRun) {
        runs.append(run)
        if !run.ok { hadFailures = true }
        emit(run.json)
    }

    func add(_ check: RatioCheck) {
        checks.append(check)
        emit(check.json)
    }

    func add(_ result: RealtimeResult) {
        realtime.append(result)
        if result.failure != nil { hadFailures = true }
        emit(result.json)
        for check in result.checks { add(check) }
    }

    func add(_ result: BenchResult) {
        results.append(result)
        if let _ = result.failure {
            hadFailures = true
            emit(result.failureLine)
        } else {
            for line in result.lines { emit(line) }
        }
        for check in result.checks { add(check) }
    }

    /// Progress and notes, on stderr.
    func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The whole run as tables, on stderr.
    func printTable() {
        var out = "\n"
        if !runs.isEmpty {
            out += "Offline mix to 48 kHz stereo (x realtime = seconds of mix per wall second)\n"
            out += row(["players", "tool", "wall s", "cpu s", "x realtime", "cores"]) + "\n"
            for r in runs {
                let cells = r.ok
                    ? [String(r.players), r.tool, fmt(r.wallSeconds), fmt(r.cpuSeconds), fmt(r.xRealtime), fmt(r.coresUsed)]
                    : [String(r.players), r.tool, "FAILED: " + String(r.failure!.prefix(80)), "", "", ""]
                out += row(cells) + "\n"
            }
        }
        for r in realtime {
            let rate = r.rate.map { " at rate \(fmt($0)) (time-stretched)" } ?? ""
            out += "\nReal time: \(r.players) players\(rate) on the null sink, \(r.periodFrames)-frame periods, \(fmt(r.seconds)) s\n"
            if let failure = r.failure {
                out += "  FAILED: \(failure)\n"
                continue
            }
            out += "  late periods \(r.latePeriods) of \(r.periods) (\(r.latePeriodsTotal) since the sink opened)"
            out += ", starved cycles \(r.starvedCycles), playing at end \(r.playingAtEnd)/\(r.players)\n"
            out += "  render thread \(fmt(r.renderCPUShare * 100))% of a core; process \(fmt(r.processCores * 100))% of a core"
            out += " (\(fmt(r.processCPUSeconds)) cpu s in \(fmt(r.wallSeconds)) s)\n"
        }
        for r in results {
            out += "\n\(r.title)\n"
            if let failure = r.failure {
                out += "  FAILED: \(failure)\n"
                continue
            }
            for line in r.table { out += "  \(line)\n" }
        }
        if !checks.isEmpty {
            out += "\nRatios and targets (mix and real-time targets are judged at \(RatioCheck.judgedPlayers) players,"
            out += " other counts for reference; the service-level targets are always judged)\n"
            out += row(["players", "ratio", "value", "target", "result"], widths: [8, 40, 10, 10, 8]) + "\n"
            for c in checks {
                let target = c.target.map { (c.goal == .atLeast ? ">= " : "<= ") + fmt($0) } ?? ""
                let result = c.passes.map { $0 ? "pass" : "FAIL" } ?? ""
                out += row([String(c.players), c.what, fmt(c.value), target, result], widths: [8, 40, 10, 10, 8]) + "\n"
            }
        }
        note(out)
    }

    private func fmt(_ v: Double) -> String {
        guard v.isFinite else { return "-" }
        return abs(v) >= 100 ? String(format: "%.0f", v) : abs(v) >= 10 ? String(format: "%.1f", v) : String(format: "%.2f", v)
    }

    private func row(_ cells: [String], widths: [Int] = [8, 14, 10, 10, 11, 6]) -> String {
        zip(cells, widths + Array(repeating: 10, count: max(0, cells.count - widths.count)))
            .map { cell, width in cell.count >= width ? cell + " " : cell + String(repeating: " ", count: width - cell.count) }
            .joined()
            .trimmingCharacters(in: .whitespaces)
    }
}
