import Foundation

/// The command line of `tonearm-bench`, parsed by hand (this target has no argument parser).
///
/// ```
/// tonearm-bench [--minutes 10] [--players 1,16,64] [--realtime-seconds 30]
///               [--realtime-players 64] [--skip-peers]
///               [--only offline|realtime|http|sse|latency|rate|stretch|metering|render]
///               [--render-nodes 16]
///               [--http-seconds 10] [--sse-clients 500] [--sse-seconds 10]
///               [--latency-runs 200] [--rate 1.25] [--stretch-seconds 600]
///               [--metering-minutes 2] [--metering-repeats 2] [--inputs build/bench]
/// ```
/// A plain value; built once on the main thread.
struct BenchOptions: Sendable {
    /// Which part of the benchmark to run.
    enum Part: String, Sendable {
        case all, offline, realtime, http, sse, latency, rate, stretch, metering, render
    }

    /// Length of each generated input, and of each offline render, in minutes.
    var minutes: Double = 10
    /// Player counts of the offline mix, in order.
    var players: [Int] = [1, 16, 64]
    /// Length of the real-time run in seconds.
    var realtimeSeconds: Double = 30
    /// Players in the real-time run.
    var realtimePlayers = 64
    /// Skip sox, ffmpeg and mpg123 (no ratios then).
    var skipPeers = false
    /// Which part to run.
    var only: Part = .all
    /// Where the generated MP3s (and the bench's other generated files) are cached.
    var inputsDirectory = "build/bench"
    /// Length of each `wrk` run (tonearm, then the bare microhttpd server), seconds.
    var httpSeconds: Double = 10
    /// `wrk` connections (`-c`); `wrk` always runs two threads (`-t2`).
    var httpConnections = 64
    /// Concurrent SSE clients.
    var sseClients = 500
    /// Length of the SSE CPU measurement (and of the no-client baseline before it), seconds.
    var sseSeconds: Double = 10
    /// POST …/play requests timed to the first rendered frame.
    var latencyRuns = 200
    /// The playback rate of the real-time rate run and the time-stretch comparison.
    var rate = 1.25
    /// Length of the time-stretch input (at most the generated inputs' length), seconds.
    var stretchSeconds: Double = 600
    /// Length of each metering-off / metering-on offline mix (at most the inputs' length), minutes.
    var meteringMinutes: Double = 2
    /// Off/on pairs of the metering comparison (the fastest of each side is compared).
    var meteringRepeats = 2
    /// Nodes in the offline render over HTTP (one input each).
    var renderNodes = 16

    static let usage = """
        usage: tonearm-bench [--minutes 10] [--players 1,16,64] [--realtime-seconds 30]
                             [--realtime-players 64] [--skip-peers]
                             [--only offline|realtime|http|sse|latency|rate|stretch|metering|render]
                             [--render-nodes 16]
                             [--http-seconds 10] [--http-connections 64] [--sse-clients 500]
                             [--sse-seconds 10] [--latency-runs 200] [--rate 1.25]
                             [--stretch-seconds 600] [--metering-minutes 2] [--metering-repeats 2]
                             [--inputs build/bench]

        Offline: renders N players of a generated 192 kb/s 44.1 kHz stereo MP3 into a 48 kHz
        stereo mix (volume 0.5, pan spread -1...1) and runs `sox -m`, `ffmpeg amix` and bare
        `mpg123` decoding on the same inputs in the same run. Real time: N looping players on
        the null sink at 256-frame periods. Rate: the same at --rate (time-stretched).
        HTTP: `wrk -t2` on GET /api/v1/players/{id} of the release `tonearm` server (found next
        to this executable) and on a bare libmicrohttpd server with the same daemon flags. SSE:
        N clients of /api/v1/events?progress=0.1 while one player plays; server CPU. Latency:
        POST …/play to the first rendered frame, in process. Stretch: the engine's time-stretcher
        against `soundstretch` on the same 48 kHz WAV. Metering: the offline mix with metering
        off and on. Render: POST /api/v1/render of N nodes (one input each, volume 0.5, pan
        spread) to the release server, against `sox -m` and `ffmpeg amix` of the same inputs.
        JSON lines on stdout; a table on stderr.
        """

    /// Parses `arguments` (without the program name); throws a message for bad input.
    static func parse(_ arguments: [String]) throws(BenchUsageError) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        func value(for flag: String) throws(BenchUsageError) -> String {
            guard let v = rest.popFirst() else { throw BenchUsageError("\(flag) needs a value") }
            return v
        }
        func number(for flag: String) throws(BenchUsageError) -> Double {
            let text = try value(for: flag)
            guard let v = Double(text), v > 0, v.isFinite else { throw BenchUsageError("\(flag): '\(text)' is not a positive number") }
            return v
        }
        func count(for flag: String) throws(BenchUsageError) -> Int {
            let n = try number(for: flag)
            guard n == n.rounded(), n < 1e9 else { throw BenchUsageError("\(flag) needs a whole number") }
            return Int(n)
        }
        while let argument = rest.popFirst() {
            var flag = argument
            if let eq = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<eq])
                rest.insert(String(argument[argument.index(after: eq)...]), at: rest.startIndex)
            }
            switch flag {
            case "--minutes":
                options.minutes = try number(for: flag)
            case "--players":
                let text = try value(for: flag)
                let counts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw BenchUsageError("--players: '\(text)' is not a list of positive counts like 1,16,64")
                }
                options.players = counts.compactMap { $0 }
            case "--realtime-seconds":
                options.realtimeSeconds = try number(for: flag)
            case "--realtime-players":
                let n = try number(for: flag)
                guard n == n.rounded() else { throw BenchUsageError("--realtime-players needs a whole number") }
                options.realtimePlayers = Int(n)
            case "--skip-peers":
                options.skipPeers = true
            case "--only":
                let text = try value(for: flag)
                guard let part = Part(rawValue: text), part != .all else {
                    throw BenchUsageError("--only: '\(text)' is not one of offline, realtime, http, sse, latency, rate, stretch, metering")
                }
                options.only = part
            case "--http-seconds":
                options.httpSeconds = try number(for: flag)
            case "--http-connections":
                options.httpConnections = try count(for: flag)
            case "--sse-clients":
                options.sseClients = try count(for: flag)
            case "--sse-seconds":
                options.sseSeconds = try number(for: flag)
            case "--latency-runs":
                options.latencyRuns = try count(for: flag)
            case "--rate":
                let r = try number(for: flag)
                guard (0.5...2.0).contains(r) else { throw BenchUsageError("--rate must be within 0.5…2.0") }
                options.rate = r
            case "--stretch-seconds":
                options.stretchSeconds = try number(for: flag)
            case "--metering-minutes":
                options.meteringMinutes = try number(for: flag)
            case "--metering-repeats":
                options.meteringRepeats = try count(for: flag)
            case "--render-nodes":
                options.renderNodes = try count(for: flag)
            case "--inputs":
                options.inputsDirectory = try value(for: flag)
            case "-h", "--help":
                throw BenchUsageError(nil)
            default:
                throw BenchUsageError("unknown argument '\(argument)'")
            }
        }
        return options
    }

    func runs(_ part: Part) -> Bool { only == .all || only == part }
    var runsOffline: Bool { runs(.offline) }
    var runsRealtime: Bool { runs(.realtime) }
}

/// A bad command line (or a request for help when `message` is nil).
struct BenchUsageError: Error, Sendable {
    let message: String?
    init(_ message: String?) { self.message = message }
}
