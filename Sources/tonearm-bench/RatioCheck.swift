/// A ratio between tonearm and a peer on the same inputs in the same run, and the target it
/// is judged against (if any). A plain value.
struct RatioCheck: Sendable {
    /// Whether a bigger ratio is better (speed) or a smaller one (CPU).
    enum Goal: String, Sendable {
        case atLeast = "min", atMost = "max"
    }

    /// The player count the targets are judged at; other counts show them for reference.
    static let judgedPlayers = 64

    /// e.g. `tonearm/sox -m speed`.
    var what: String
    var players: Int
    var value: Double
    var target: Double?
    var goal: Goal
    /// Judged whatever `players` is (the service-level targets are not per player count).
    var alwaysJudged = false

    /// Whether this check is one the issue judges.
    var judged: Bool { alwaysJudged || players == RatioCheck.judgedPlayers }

    /// Nil when there is no target.
    var passes: Bool? {
        guard let target, value.isFinite else { return target == nil ? nil : false }
        return goal == .atLeast ? value >= target : value <= target
    }

    var json: JSONLine {
        var line = JSONLine(["bench": .string("ratio"), "what": .string(what), "players": .int(players), "value": .number(value)])
        if let target {
            line.append("target", .number(target))
            line.append("target_is", .string(goal.rawValue))
            line.append("pass", passes.map { .bool($0) } ?? .null)
            line.append("judged", .bool(judged))
        }
        return line
    }

    /// The ratios of one player count: speed against sox and ffmpeg, CPU against sox, ffmpeg
    /// and bare mpg123 decoding. Targets are the (they are judged at 64 players).
    static func compare(tonearm: ToolRun, peers: [ToolRun]) -> [RatioCheck] {
        guard tonearm.ok else { return [] }
        var checks: [RatioCheck] = []
        for peer in peers where peer.ok {
            switch peer.tool {
            case PeerTools.soxName:
                checks.append(RatioCheck(what: "tonearm/\(peer.tool) speed", players: tonearm.players,
                                         value: tonearm.xRealtime / peer.xRealtime, target: 3, goal: .atLeast))
                checks.append(RatioCheck(what: "tonearm/\(peer.tool) cpu", players: tonearm.players,
                                         value: tonearm.cpuSeconds / peer.cpuSeconds, target: nil, goal: .atMost))
            case PeerTools.ffmpegName:
                checks.append(RatioCheck(what: "tonearm/\(peer.tool) speed", players: tonearm.players,
                                         value: tonearm.xRealtime / peer.xRealtime, target: 1.5, goal: .atLeast))
                checks.append(RatioCheck(what: "tonearm/\(peer.tool) cpu", players: tonearm.players,
                                         value: tonearm.cpuSeconds / peer.cpuSeconds, target: nil, goal: .atMost))
            case PeerTools.mpg123Name:
                checks.append(RatioCheck(what: "tonearm/\(peer.tool) cpu", players: tonearm.players,
                                         value: tonearm.cpuSeconds / peer.cpuSeconds, target: 2, goal: .atMost))
            default:
                break
            }
        }
        return checks
    }
}
