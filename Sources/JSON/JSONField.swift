/// A JSON value together with its path in the request body, with typed
/// accessors whose errors name that path. Produced by `JSONObjectReader`
/// (for members) and by `elements()` (for array elements, `players[2]`).
///
/// `null` counts as the wrong type here; `JSONObjectReader`'s `optional…`
/// methods treat a `null` member as absent. A plain value: any thread.
package struct JSONField: Sendable {
    package let path: String
    package let value: JSONValue

    package init(_ value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    /// The name used in messages: the path, or "request body" for the root.
    var name: String { path.isEmpty ? "request body" : path }

    func wrongType(_ expected: String) -> JSONFieldError {
        JSONFieldError(.wrongType, path: path, message: "\(name) must be \(expected), got \(Self.describe(value))")
    }

    package func string() throws(JSONFieldError) -> String {
        guard case .string(let text) = value else { throw wrongType("a string") }
        return text
    }

    /// A non-empty string of at most `maxLength` UTF-8 bytes, when given.
    package func string(nonEmpty: Bool, maxLength: Int? = nil) throws(JSONFieldError) -> String {
        let text = try string()
        if nonEmpty && text.isEmpty {
            throw JSONFieldError(.outOfRange, path: path, message: "\(name) must not be empty")
        }
        if let maxLength, text.utf8.count > maxLength {
            throw JSONFieldError(.outOfRange, path: path,
                                 message: "\(name) must be at most \(maxLength) bytes long, got \(text.utf8.count)")
        }
        return text
    }

    package func bool() throws(JSONFieldError) -> Bool {
        guard case .bool(let flag) = value else { throw wrongType("true or false") }
        return flag
    }

    /// Any number (integers accepted), optionally within `range`.
    package func double(in range: ClosedRange<Double>? = nil) throws(JSONFieldError) -> Double {
        guard let number = value.doubleValue else {
            throw wrongType(range.map { "a number between \(Self.format($0.lowerBound)) and \(Self.format($0.upperBound))" }
                            ?? "a number")
        }
        if let range, !range.contains(number) {
            throw JSONFieldError(.outOfRange, path: path,
                                 message: "\(name) must be a number between \(Self.format(range.lowerBound)) and "
                                     + "\(Self.format(range.upperBound)), got \(Self.describe(value))")
        }
        return number
    }

    /// An integral number (`3` or `3.0`), optionally within `range`.
    package func int(in range: ClosedRange<Int>? = nil) throws(JSONFieldError) -> Int {
        let expected = range.map { "an integer between \($0.lowerBound) and \($0.upperBound)" } ?? "an integer"
        guard let number = value.intValue else { throw wrongType(expected) }
        if let range, !range.contains(number) {
            throw JSONFieldError(.outOfRange, path: path, message: "\(name) must be \(expected), got \(Self.describe(value))")
        }
        return number
    }

    package func array() throws(JSONFieldError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw wrongType("an array") }
        return elements
    }

    /// The array's elements as fields with paths `name[0]`, `name[1]`, …
    package func elements() throws(JSONFieldError) -> [JSONField] {
        try array().enumerated().map { JSONField($0.element, path: "\(path)[\($0.offset)]") }
    }

    /// A reader over this object's members (their paths are prefixed with `path.`).
    package func object() throws(JSONFieldError) -> JSONObjectReader {
        guard case .object(let object) = value else { throw wrongType("an object") }
        return JSONObjectReader(object: object, path: path)
    }

    /// A short rendering of a value for messages: type and (truncated) JSON.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool, .int, .double: return value.serializedString()
        case .string:
            let text = value.serializedString()
            return "string " + (text.count > 40 ? String(text.prefix(37)) + "…\"" : text)
        case .array(let elements): return "an array of \(elements.count)"
        case .object: return "an object"
        }
    }

    /// A range bound for messages: `0`, `1`, `0.25` (no trailing `.0`).
    static func format(_ number: Double) -> String {
        if let integral = Int64(exactly: number) { return String(integral) }
        return JSONValue.double(number).serializedString()
    }
}
