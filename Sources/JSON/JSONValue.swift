/// A JSON value: what the HTTP API parses from request bodies and serializes
/// into responses and SSE events.
///
/// Numbers keep their kind: JSON integers parse as `.int` (exact, 64-bit) and
/// numbers with a fraction or exponent as `.double`. The two are distinct
/// values (`.int(2) != .double(2)`), but `doubleValue` accepts both and
/// `intValue` accepts integral doubles, so callers rarely need to care.
/// Objects keep their key order (as parsed, or as inserted); equality of
/// objects ignores key order, as JSON does.
///
/// A plain immutable value: any thread may create, read and share it.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A JSON number written without fraction or exponent.
    case int(Int64)
    /// A JSON number written with a fraction or exponent. Never NaN or
    /// infinite when parsed; if one is built by hand it serializes as `null`.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// The member named `key` when this is an object; nil otherwise or when absent.
    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range.
    package subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Any number as a `Double` (integers convert, rounding beyond 2^53).
    package var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// An integral number as `Int64`: `.int`, or a `.double` with no fractional
    /// part that fits (so `2.0` is accepted, `2.5` is not).
    package var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// An integral number as `Int` (see `int64Value`).
    package var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The JSON type name, for error messages: "null", "boolean", "integer",
    /// "number", "string", "array", "object".
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact serialization.
    package var description: String { serializedString() }
}
