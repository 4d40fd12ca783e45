/// One tool's run over one list of inputs: time, CPU and speed, or why it failed.
/// A plain value; any thread.
struct ToolRun: Sendable {
    /// Bench name in the JSON (`offline-mix` or `decode`).
    var bench: String
    /// `tonearm`, `sox -m`, `ffmpeg amix`, `mpg123`.
    var tool: String
    var players: Int
    /// Seconds of audio per input (the length of the mix).
    var audioSeconds: Double
    var wallSeconds: Double = 0
    /// User + system CPU seconds (this process for tonearm, the children for peers).
    var cpuSeconds: Double = 0
    /// Why it failed; nil when it ran.
    var failure: String?
    /// Extra facts for the JSON line (e.g. the peak sample of the mix).
    var extra: [(String, JSONValue)] = []

    var ok: Bool { failure == nil }
    /// Audio seconds of the mix rendered per wall second.
    var xRealtime: Double { audioSeconds / wallSeconds }
    /// Average cores busy: CPU seconds per wall second.
    var coresUsed: Double { cpuSeconds / wallSeconds }

    /// The JSON line of this run.
    var json: JSONLine {
        var line = JSONLine(["bench": .string(bench), "players": .int(players), "tool": .string(tool),
                             "audio_s": .number(audioSeconds)])
        if let failure {
            line.append("ok", .bool(false))
            line.append("error", .string(failure))
        } else {
            line.append("ok", .bool(true))
            line.append("wall_s", .number(wallSeconds))
            line.append("cpu_s", .number(cpuSeconds))
            line.append("x_realtime", .number(xRealtime))
            line.append("cores_used", .number(coresUsed))
        }
        for (k, v) in extra { line.append(k, v) }
        return line
    }
}
