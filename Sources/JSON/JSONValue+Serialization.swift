extension JSONValue {
    /// Output layout for `serialized(_:)`.
    package enum Layout: Sendable {
        /// One line, no spaces (`{"a":1,"b":[true,null]}`): responses and SSE `data:` lines.
        case compact
        /// Indented by two spaces, `"key": value`, for humans (logs, files).
        case pretty
    }

    /// The value as UTF-8 JSON text, members in their stored order.
    ///
    /// Written by a Swift serializer (not jansson): it produces the same JSON
    /// as `json_dumpb` but formats doubles as the shortest text that reads
    /// back to the same double (`0.1`, `-6.02`, `1e-7`, `1e300`), and is
    /// several times faster (see the benchmark test). Doubles with an integral
    /// value keep a `.0` (`2.0`) so they read back as doubles; integers print
    /// as integers. NaN and infinities, which JSON cannot express, print as
    /// `null`. Strings are escaped per RFC 8259: `"` `\` and control
    /// characters (`\n`, `\t`, … and `\u001f` style), so the compact form never
    /// contains a raw newline; other characters, including non-ASCII, are
    /// written as UTF-8. Any thread may call this.
    package func serialized(_ layout: Layout = .compact) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        JSONWriter.write(self, to: &out, indent: layout == .pretty ? 0 : -1)
        return out
    }

    /// `serialized(_:)` as a `String`.
    package func serializedString(_ layout: Layout = .compact) -> String {
        String(decoding: serialized(layout), as: UTF8.self)
    }
}

/// The Swift JSON writer behind `JSONValue.serialized(_:)`.
enum JSONWriter {
    /// `indent` is the current depth for pretty output, or -1 for compact.
    static func write(_ value: JSONValue, to out: inout [UInt8], indent: Int) {
        let child = indent < 0 ? -1 : indent + 1
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .int(let number): writeInteger(number, to: &out)
        case .double(let number): writeDouble(number, to: &out)
        case .string(let text): writeString(text, to: &out)
        case .array(let elements):
            if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(to: &out, indent: child)
                write(element, to: &out, indent: child)
            }
            newline(to: &out, indent: indent)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(to: &out, indent: child)
                writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent >= 0 { out.append(UInt8(ascii: " ")) }
                write(member.value, to: &out, indent: child)
            }
            newline(to: &out, indent: indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(to out: inout [UInt8], indent: Int) {
        guard indent >= 0 else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    static func writeInteger(_ number: Int64, to out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        // 20 digits hold UInt64.max.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: digits[start..<20])
        }
    }

    /// Shortest round-trip text (Swift's own `description`), with the exponent
    /// normalized to JSON style: `1e-07` → `1e-7`, `1e+300` → `1e300`.
    static func writeDouble(_ number: Double, to out: inout [UInt8]) {
        guard number.isFinite else { out.append(contentsOf: "null".utf8); return }
        var text = number.description
        text.withUTF8 { utf8 in
            guard let e = utf8.firstIndex(of: UInt8(ascii: "e")) else {
                out.append(contentsOf: utf8)
                return
            }
            out.append(contentsOf: utf8[..<e])
            out.append(UInt8(ascii: "e"))
            var index = e + 1
            if utf8[index] == UInt8(ascii: "+") {
                index += 1
            } else if utf8[index] == UInt8(ascii: "-") {
                out.append(UInt8(ascii: "-"))
                index += 1
            }
            while index < utf8.count - 1 && utf8[index] == UInt8(ascii: "0") { index += 1 }
            out.append(contentsOf: utf8[index...])
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0x0F)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
