import Foundation

/// The command line of `tonearm-bench`, parsed by hand (this target has no argument parser).
///
/// ```
/// tonearm-bench [--minutes 10] [--players 1,16,64] [--realtime-seconds 30]
///               [--realtime-players 64] [--skip-peers] [--only offline|realtime]
///               [--inputs build/bench]
/// ```
/// A plain value; built once on the main thread.
struct BenchOptions: Sendable {
    /// Which part of the benchmark to run.
    enum Part: String, Sendable {
        case all, offline, realtime
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
    /// Where the generated MP3s are cached.
    var inputsDirectory = "build/bench"

    static let usage = """
        usage: tonearm-bench [--minutes 10] [--players 1,16,64] [--realtime-seconds 30]
                             [--realtime-players 64] [--skip-peers] [--only offline|realtime]
                             [--inputs build/bench]

        Offline: renders N players of a generated 192 kb/s 44.1 kHz stereo MP3 into a 48 kHz
        stereo mix (volume 0.5, pan spread -1...1) and runs `sox -m`, `ffmpeg amix` and bare
        `mpg123` decoding on the same inputs in the same run. Real time: N looping players on
        the null sink at 256-frame periods. JSON lines on stdout; a table on stderr.
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
                    throw BenchUsageError("--only: '\(text)' is neither offline nor realtime")
                }
                options.only = part
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

    var runsOffline: Bool { only != .realtime }
    var runsRealtime: Bool { only != .offline }
}

/// A bad command line (or a request for help when `message` is nil).
struct BenchUsageError: Error, Sendable {
    let message: String?
    init(_ message: String?) { self.message = message }
}
