import AudioCore
import AudioEngine
import AudioOutput
import Foundation
import HTTPServer
import Logging
import TonearmAPI

/// Issue 3's latency target: from writing POST /api/v1/players/{id}/play on a kept-alive
/// connection to the render cycle that rendered the player's first frame, within one period.
/// In process, so both ends read the same CLOCK_MONOTONIC: the engine on the null sink at
/// 48 kHz stereo, 256-frame periods, TonearmService and HTTPServer wired as `tonearm serve`
/// wires them. The player is prepared before each start (POST …/prepare after …/stop), so
/// decoding is not timed. Main thread.
enum PlayLatencyBench {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)
    static let periodFrames = 256
    static let periods = 4
    static let warmupRuns = 5
    /// Target: the 99th percentile within one period.
    static let targetPeriods = 1.0

    static func run(mediaRoot: String, file: String, runs: Int, progress: (String) -> Void) -> BenchResult {
        let periodMs = Double(periodFrames) / Double(format.sampleRate) * 1000
        var result = BenchResult(bench: "play-latency",
                                 title: "POST …/play to the first rendered frame: \(runs) starts, null sink, \(periodFrames)-frame periods (\(String(format: "%.2f", periodMs)) ms)")
        let stateDirectory = NSTemporaryDirectory() + "tonearm-bench-latency-\(getpid())-\(MonotonicClock.nanoseconds())"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let engine = Engine(sink: NullSink(format: format, periodFrames: periodFrames, periods: periods))
        defer { engine.shutdown() }
        var logger = Logger(label: "tonearm-bench")
        logger.logLevel = .warning
        do {
            try engine.start()
            let service = try TonearmService(
                engine: engine,
                configuration: APIConfiguration(mediaRoots: [mediaRoot], stateDirectory: stateDirectory, token: nil,
                                                publicDirectory: nil, openAPIPath: nil),
                logger: logger)
            defer { service.shutdown() }
            let server = HTTPServer(configuration: HTTPServer.Configuration(
                host: "127.0.0.1", port: 0, connectionLimit: 1024, perIPConnectionLimit: 0,
                connectionTimeout: 60, maxBodyBytes: 1 << 20, sseKeepalive: .seconds(15)))
            try service.register(on: server)
            try server.start()
            defer { server.stop() }

            let client = try HTTPClient(port: server.port)
            try client.request("PUT", "/api/v1/players/p1", json: "{\"url\":\(JSONValue.string(file).text),\"numberOfLoops\":-1}")
            guard let player = service.player(id: "p1") else { throw BenchError("the service has no player p1 after PUT") }

            let periodNs = periodMs * 1e6
            // As the issue asks (stop, prepare, play at once), then again with a pause after
            // prepare, which shows whether prepare returned before fresh audio was ready.
            for settle in settleMilliseconds {
                progress(settle == 0 ? "  stop, prepare, play…" : "  stop, prepare, \(settle) ms pause, play…")
                let (latencies, responses) = try measure(client: client, player: player, runs: runs, settleMs: settle,
                                                         progress: progress)
                let stats = Distribution(latencies)
                let answer = Distribution(responses)
                var fields: [(String, JSONValue)] = [("tool", .string("tonearm")), ("ok", .bool(true)), ("runs", .int(runs)),
                                                     ("pause_after_prepare_ms", .int(settle)),
                                                     ("period_frames", .int(periodFrames)), ("period_ms", .number(periodMs))]
                for (name, v) in stats.named { fields.append(("\(name)_ms", .number(v / 1e6))) }
                for (name, v) in stats.named { fields.append(("\(name)_periods", .number(v / periodNs))) }
                for (name, v) in answer.named where name == "p50" || name == "p99" { fields.append(("response_\(name)_ms", .number(v / 1e6))) }
                fields.append(("within_one_period", .int(latencies.filter { $0 <= periodNs }.count)))
                result.lines.append(result.line(fields))
                result.table.append(settle == 0 ? "stop, prepare, play (as the issue asks):"
                                                : "stop, prepare, \(settle) ms pause, play (for reference):")
                result.table.append("  first frame  ms:      " + stats.named.map { "\($0.0) \(String(format: "%.2f", $0.1 / 1e6))" }.joined(separator: "  "))
                result.table.append("  first frame  periods: " + stats.named.map { "\($0.0) \(String(format: "%.2f", $0.1 / periodNs))" }.joined(separator: "  "))
                result.table.append("  HTTP answer  ms:      " + answer.named.map { "\($0.0) \(String(format: "%.2f", $0.1 / 1e6))" }.joined(separator: "  "))
                result.table.append("  \(latencies.filter { $0 <= periodNs }.count) of \(runs) starts within one period")
                result.checks.append(RatioCheck(what: "play→first frame p99 periods" + (settle == 0 ? "" : ", \(settle) ms pause"),
                                                players: 1, value: stats.p99 / periodNs,
                                                target: settle == 0 ? targetPeriods : nil, goal: .atMost, alwaysJudged: true))
            }
            try client.request("POST", "/api/v1/players/p1/stop", json: "{}")
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }
}

extension PlayLatencyBench {
    /// Pauses after prepare of the two protocols: none (the issue's), and a few periods.
    static let settleMilliseconds = [0, 50]

    /// `runs` (after a few warm-up ones) of stop, prepare, [pause], play; returns the
    /// latencies to the first rendered frame and to the HTTP answer, in ns.
    static func measure(client: HTTPClient, player: Player, runs: Int, settleMs: Int,
                        progress: (String) -> Void) throws(BenchError) -> ([Double], [Double]) {
        let play = client.requestBytes("POST", "/api/v1/players/p1/play", json: "{}")
        var latencies: [Double] = []
        var responses: [Double] = []
        for i in 0..<(runs + warmupRuns) {
            try client.request("POST", "/api/v1/players/p1/stop", json: "{}")
            try client.request("POST", "/api/v1/players/p1/prepare", json: "{}")
            if settleMs > 0 { usleep(UInt32(settleMs) * 1000) }
            let before = player.firstFrameRenderedAt
            let t0 = MonotonicClock.nanoseconds()
            try client.write(play)
            let (status, body) = try client.readResponse()
            let answered = MonotonicClock.nanoseconds()
            guard (200..<300).contains(status) else { throw BenchError("POST …/play answered \(status): \(body.prefix(200))") }
            var first = player.firstFrameRenderedAt
            let deadline = answered + 1_000_000_000
            while (first == before || first < t0) && MonotonicClock.nanoseconds() < deadline {
                usleep(100)
                first = player.firstFrameRenderedAt
            }
            guard first != before && first >= t0 else { throw BenchError("start \(i + 1): no first frame rendered within 1 s") }
            if i >= warmupRuns {
                latencies.append(Double(first - t0))
                responses.append(Double(answered - t0))
                if (i + 1 - warmupRuns) % 100 == 0 { progress("    \(i + 1 - warmupRuns) starts…") }
            }
        }
        return (latencies, responses)
    }
}

/// Order statistics of a sample (nearest-rank percentiles). A plain value.
struct Distribution: Sendable {
    let sorted: [Double]
    init(_ values: [Double]) { sorted = values.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    var p99: Double { percentile(99) }
    /// min, p50, p90, p99, max.
    var named: [(String, Double)] {
        [("min", sorted.first ?? .nan), ("p50", percentile(50)), ("p90", percentile(90)), ("p99", p99), ("max", sorted.last ?? .nan)]
    }
}
