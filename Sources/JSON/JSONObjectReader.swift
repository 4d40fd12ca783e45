/// Reads a request body's object field by field with type and range checks,
/// then rejects anything it was not asked for.
///
/// ```swift
/// var body = try JSONObjectReader(JSONValue.parse(bytes))
/// let volume = try body.optionalDouble("volume", in: 0...1)
/// let url = try body.string("url")
/// try body.finish()   // "unknown field 'volum' (did you mean 'volume'? known fields: url, volume)"
/// ```
///
/// Every field name passed to any method counts as known, whether present or
/// not; `finish()` throws `.unknownField` for the rest. Optional getters treat
/// an explicit `null` like an absent member. A value type used by one request
/// handler at a time.
package struct JSONObjectReader: Sendable {
    package let object: JSONObject
    /// Path prefix of this object (`""` for the request body itself).
    package let path: String
    private var known: [String] = []

    /// A reader for `value`, which must be an object ("request body must be an object, got array").
    package init(_ value: JSONValue, path: String = "") throws(JSONFieldError) {
        guard case .object(let object) = value else {
            throw JSONField(value, path: path).wrongType("an object")
        }
        self.init(object: object, path: path)
    }

    package init(object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    private func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the member is present (even if `null`); marks `key` as known.
    package mutating func contains(_ key: String) -> Bool {
        markKnown(key)
        return object[key] != nil
    }

    /// The member as a field (present, `null` included), or nil when absent; marks `key` as known.
    package mutating func optionalField(_ key: String) -> JSONField? {
        markKnown(key)
        return object[key].map { JSONField($0, path: childPath(key)) }
    }

    /// The member as a field; throws `.missing` when absent.
    package mutating func field(_ key: String) throws(JSONFieldError) -> JSONField {
        guard let field = optionalField(key) else {
            throw JSONFieldError(.missing, path: childPath(key), message: "missing required field '\(childPath(key))'")
        }
        return field
    }

    private mutating func nonNull(_ key: String) -> JSONField? {
        guard let field = optionalField(key), !field.value.isNull else { return nil }
        return field
    }

    package mutating func string(_ key: String) throws(JSONFieldError) -> String { try field(key).string() }
    package mutating func optionalString(_ key: String) throws(JSONFieldError) -> String? { try nonNull(key)?.string() }

    package mutating func bool(_ key: String) throws(JSONFieldError) -> Bool { try field(key).bool() }
    package mutating func optionalBool(_ key: String) throws(JSONFieldError) -> Bool? { try nonNull(key)?.bool() }

    package mutating func double(_ key: String, in range: ClosedRange<Double>? = nil) throws(JSONFieldError) -> Double {
        try field(key).double(in: range)
    }
    package mutating func optionalDouble(_ key: String, in range: ClosedRange<Double>? = nil) throws(JSONFieldError) -> Double? {
        try nonNull(key)?.double(in: range)
    }

    package mutating func int(_ key: String, in range: ClosedRange<Int>? = nil) throws(JSONFieldError) -> Int {
        try field(key).int(in: range)
    }
    package mutating func optionalInt(_ key: String, in range: ClosedRange<Int>? = nil) throws(JSONFieldError) -> Int? {
        try nonNull(key)?.int(in: range)
    }

    /// The array's elements as fields named `key[i]`.
    package mutating func elements(_ key: String) throws(JSONFieldError) -> [JSONField] { try field(key).elements() }
    package mutating func optionalElements(_ key: String) throws(JSONFieldError) -> [JSONField]? {
        try nonNull(key)?.elements()
    }

    /// A reader for a nested object; call `finish()` on it too.
    package mutating func object(_ key: String) throws(JSONFieldError) -> JSONObjectReader { try field(key).object() }
    package mutating func optionalObject(_ key: String) throws(JSONFieldError) -> JSONObjectReader? {
        try nonNull(key)?.object()
    }

    /// Marks names as known without reading them (fields handled elsewhere).
    package mutating func allow(_ keys: String...) {
        for key in keys { markKnown(key) }
    }

    private mutating func markKnown(_ key: String) {
        if !known.contains(key) { known.append(key) }
    }

    /// Throws `.unknownField` naming every member that no method asked for,
    /// with a suggestion for a near-miss and the list of known fields.
    package func finish() throws(JSONFieldError) {
        let unknown = object.keys.filter { !known.contains($0) }
        guard let first = unknown.first else { return }
        let names = unknown.map { "'\(childPath($0))'" }.joined(separator: ", ")
        var message = unknown.count == 1 ? "unknown field \(names)" : "unknown fields \(names)"
        var notes: [String] = []
        if unknown.count == 1, let suggestion = Self.closest(to: first, in: known) {
            notes.append("did you mean '\(suggestion)'?")
        }
        notes.append(known.isEmpty ? "this object takes no fields" : "known fields: " + known.joined(separator: ", "))
        message += " (" + notes.joined(separator: " ") + ")"
        throw JSONFieldError(.unknownField, path: childPath(first), message: message)
    }

    /// The known name within edit distance 2 of `name` (case-insensitive), if any.
    static func closest(to name: String, in candidates: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            if distance <= 2, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1,
                                       previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
