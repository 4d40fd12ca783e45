import AudioCore
import AudioDecoding
import AudioEngine
import AudioOutput
import Foundation

/// What the real-time run measured. A plain value.
struct RealtimeResult: Sendable {
    var players: Int
    var periodFrames: Int
    var seconds: Double
    /// The playback rate (time-stretched), or nil for plain playback at rate 1.
    var rate: Double? = nil
    /// Late periods (sink underruns) while the players played.
    var latePeriods = 0
    /// Late periods since the sink opened (includes preparing the players).
    var latePeriodsTotal = 0
    /// Cycles in which some player had no audio ready (its decode worker fell behind).
    var starvedCycles = 0
    /// Periods rendered while the players played.
    var periods = 0
    /// Render-thread CPU seconds while the players played.
    var renderCPUSeconds = 0.0
    /// Process CPU seconds (render, decode and monitor threads) while the players played.
    var processCPUSeconds = 0.0
    var wallSeconds = 0.0
    /// Players still playing when the run ended (all of them, since they loop).
    var playingAtEnd = 0
    var failure: String?

    /// Share of one core the render thread used.
    var renderCPUShare: Double { renderCPUSeconds / wallSeconds }
    /// Cores the whole process used on average.
    var processCores: Double { processCPUSeconds / wallSeconds }

    var json: JSONLine {
        var line = JSONLine(["bench": .string(rate == nil ? "realtime" : "realtime-rate"), "players": .int(players),
                             "tool": .string("tonearm"), "sink": .string("null"), "period_frames": .int(periodFrames),
                             "seconds": .number(seconds)])
        if let rate { line.append("rate", .number(rate)) }
        if let failure {
            line.append("ok", .bool(false))
            line.append("error", .string(failure))
            return line
        }
        line.append("ok", .bool(true))
        line.append("wall_s", .number(wallSeconds))
        line.append("periods", .int(periods))
        line.append("late_periods", .int(latePeriods))
        line.append("late_periods_total", .int(latePeriodsTotal))
        line.append("starved_cycles", .int(starvedCycles))
        line.append("render_cpu_s", .number(renderCPUSeconds))
        line.append("render_cpu_share", .number(renderCPUShare))
        line.append("process_cpu_s", .number(processCPUSeconds))
        line.append("process_cores", .number(processCores))
        line.append("playing_at_end", .int(playingAtEnd))
        return line
    }

    /// The targets: no late periods, render thread under 25% of one core (at rate 1;
    /// with a rate, 0 late periods is the target and the rest is for reference).
    var checks: [RatioCheck] {
        guard failure == nil else { return [] }
        if let rate {
            let label = "realtime rate \(rate)"
            return [
                RatioCheck(what: "\(label) late periods", players: players, value: Double(latePeriods), target: 0, goal: .atMost),
                RatioCheck(what: "\(label) starved cycles", players: players, value: Double(starvedCycles), target: nil, goal: .atMost),
                RatioCheck(what: "\(label) render-thread share", players: players, value: renderCPUShare, target: nil, goal: .atMost),
            ]
        }
        return [
            RatioCheck(what: "realtime late periods", players: players, value: Double(latePeriods), target: 0, goal: .atMost),
            RatioCheck(what: "realtime render-thread share of a core", players: players, value: renderCPUShare, target: 0.25, goal: .atMost),
        ]
    }
}

/// The real-time run: N players of the inputs looping forever on the null sink (which keeps
/// a sound card's time and counts late writes as underruns) at 256-frame periods, started
/// together and played for a while. Main thread.
enum RealtimeBench {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)
    static let periodFrames = 256
    static let periods = 4

    /// Plays `inputs` for `seconds`; with `rate`, every player is time-stretched to it
    /// (`enableRate` and the rate set before prepare, so the stretcher runs from the start).
    static func run(inputs: [String], seconds: Double, rate: Double? = nil, progress: (String) -> Void) -> RealtimeResult {
        var result = RealtimeResult(players: inputs.count, periodFrames: periodFrames, seconds: seconds, rate: rate)
        let sink = NullSink(format: format, periodFrames: periodFrames, periods: periods)
        let engine = Engine(sink: sink, maximumPlayers: max(256, inputs.count), decodeThreads: 2)
        defer { engine.shutdown() }
        do {
            try engine.start()
            var players: [Player] = []
            for (i, path) in inputs.enumerated() {
                let player = try engine.makePlayer(id: "p\(i)", input: .file(path))
                player.numberOfLoops = -1
                player.volume = 0.5
                player.pan = inputs.count == 1 ? 0 : -1 + 2 * Double(i) / Double(inputs.count - 1)
                if let rate {
                    player.enableRate = true
                    try player.setRate(rate)
                }
                players.append(player)
            }
            for player in players where !player.prepare() {
                throw BenchError("player \(player.id) could not be prepared")
            }
            // Late periods and starvation count from the start command on; CPU and time are
            // sampled when the render thread publishes its CPU time (every 64 periods).
            let startXruns = engine.xruns
            let startStarved = engine.starvedCycles
            guard engine.play(players, atTime: engine.deviceCurrentTime).ok else {
                throw BenchError("the engine could not start the players together")
            }
            let (startRender, start) = renderCPUUpdate(engine)
            let startCycles = engine.renderedCycles
            let deadline = start.wall + seconds
            var nextReport = start.wall + 10
            while true {
                let now = CPUTime.now().wall
                if now >= deadline { break }
                if now >= nextReport {
                    progress(String(format: "  realtime: %.0f s, %d late periods so far", now - start.wall, engine.xruns - startXruns))
                    nextReport += 10
                }
                usleep(UInt32(min(0.25, deadline - now) * 1e6))
            }
            let (endRender, end) = renderCPUUpdate(engine)
            (result.wallSeconds, result.processCPUSeconds) = end.since(start)
            result.renderCPUSeconds = endRender - startRender
            result.latePeriods = engine.xruns - startXruns
            result.latePeriodsTotal = engine.xruns
            result.starvedCycles = engine.starvedCycles - startStarved
            result.periods = engine.renderedCycles - startCycles
            result.playingAtEnd = players.filter { $0.state == .playing }.count
            if let error = engine.deviceError { result.failure = "the null sink failed: \(error)" }
            players.removeAll()
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }

    /// Waits (up to 1 s) for the render thread to publish its CPU time, and returns it with the
    /// clocks read right then, so render CPU and wall time cover the same span.
    private static func renderCPUUpdate(_ engine: Engine) -> (Double, CPUTime) {
        let before = engine.renderCPUSeconds
        let deadline = CPUTime.now().wall + 1
        while engine.renderCPUSeconds == before && CPUTime.now().wall < deadline {
            usleep(500)
        }
        return (engine.renderCPUSeconds, CPUTime.now())
    }
}
