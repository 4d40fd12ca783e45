/// The outcome of one of the service-level benchmarks (HTTP, SSE, play latency, time-stretch,
/// metering): its JSON lines (one per tool or side), a few lines for the table, and the
/// checks against the targets — or why it could not run. A plain value; any thread.
struct BenchResult: Sendable {
    /// Bench name in the JSON (`http`, `sse`, `play-latency`, `stretch`, `metering`).
    var bench: String
    /// The table's heading for this bench.
    var title: String
    /// JSON lines, in order (each already carries `bench`).
    var lines: [JSONLine] = []
    /// Readable lines for the table.
    var table: [String] = []
    var checks: [RatioCheck] = []
    /// Why it could not run; nil when it ran.
    var failure: String?

    init(bench: String, title: String) {
        self.bench = bench
        self.title = title
    }

    /// A result that could not run.
    init(bench: String, title: String, failure: String) {
        self.init(bench: bench, title: title)
        self.failure = failure
    }

    var ok: Bool { failure == nil }

    /// A JSON line of this bench: `bench`, then `fields` in order.
    func line(_ fields: [(String, JSONValue)]) -> JSONLine {
        var line = JSONLine(["bench": .string(bench)])
        for (k, v) in fields { line.append(k, v) }
        return line
    }

    /// The line reporting a failure.
    var failureLine: JSONLine {
        line([("ok", .bool(false)), ("error", .string(failure ?? ""))])
    }
}
