// Literal conformances, so API code can write
// `["id": .string(id), "volume": 0.5, "ok": true, "tags": ["a", "b"], "x": nil]`.

extension JSONValue: ExpressibleByNilLiteral {
    package init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    package init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    package init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Keys keep the literal's order; a repeated key keeps the last value.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.lazy.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// Convenience constructors for values held in Swift variables.
    package init(_ value: String) { self = .string(value) }
    package init(_ value: Bool) { self = .bool(value) }
    package init(_ value: Int) { self = .int(Int64(value)) }
    package init(_ value: Int64) { self = .int(value) }
    package init(_ value: Double) { self = .double(value) }
    package init(_ value: [JSONValue]) { self = .array(value) }
    package init(_ value: JSONObject) { self = .object(value) }
    /// `.null` when `value` is nil.
    package init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    package init(_ value: Double?) { self = value.map(JSONValue.double) ?? .null }
}
