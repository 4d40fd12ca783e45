/// A JSON value as the bench writes it (hand-written: this target does not link the JSON module).
enum JSONValue: Sendable {
    case string(String)
    case int(Int)
    /// Written with at most 4 decimals; NaN and infinities become null.
    case number(Double)
    case bool(Bool)
    case null

    var text: String {
        switch self {
        case let .string(s): JSONValue.quote(s)
        case let .int(i): String(i)
        case let .number(d):
            if !d.isFinite { "null" } else if d == d.rounded() && abs(d) < 1e15 { String(Int(d)) } else { String((d * 10_000).rounded() / 10_000) }
        case let .bool(b): b ? "true" : "false"
        case .null: "null"
        }
    }

    private static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One JSON object on one line, keys in the order they were added. A plain value.
struct JSONLine: Sendable {
    private var fields: [(String, JSONValue)]

    init(_ fields: KeyValuePairs<String, JSONValue>) {
        self.fields = fields.map { ($0.key, $0.value) }
    }

    mutating func append(_ key: String, _ value: JSONValue) {
        fields.append((key, value))
    }

    var text: String {
        "{" + fields.map { JSONValue.string($0.0).text + ":" + $0.1.text }.joined(separator: ",") + "}"
    }
}
