/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// A plain value type: safe to use from any thread.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    package init() { fields = [] }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    package func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// The first value of `name` (compared case-insensitively); setting replaces all
    /// fields of that name, `nil` removes them.
    package subscript(name: String) -> String? {
        get { fields.first { Self.equal($0.name, name) }?.value }
        set {
            fields.removeAll { Self.equal($0.name, name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// All values of `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.equal($0.name, name) }.map(\.value)
    }

    package func contains(_ name: String) -> Bool { fields.contains { Self.equal($0.name, name) } }

    /// Appends a field, keeping any existing ones of the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    static func equal(_ a: String, _ b: String) -> Bool {
        let ua = a.utf8, ub = b.utf8
        guard ua.count == ub.count else { return false }
        for (x, y) in zip(ua, ub) where x != y {
            let lx = (x >= 65 && x <= 90) ? x | 0x20 : x
            let ly = (y >= 65 && y <= 90) ? y | 0x20 : y
            if lx != ly { return false }
        }
        return true
    }
}
