/// An ordered JSON object: members keep the order in which they were parsed
/// or inserted, and serialize in that order. Keys are unique; setting an
/// existing key replaces its value in place.
///
/// Lookup is a linear scan, which is the fast choice for the small objects of
/// a control API (tens of members). Equality and hashing ignore member order.
/// A plain value type: any thread may use it.
package struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    package typealias Member = (key: String, value: JSONValue)

    package private(set) var members: [Member]

    package init() { members = [] }

    /// Members in order; when a key repeats, the last value wins at the position of the first.
    package init(_ members: some Sequence<Member>) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    /// Members whose keys the caller knows to be unique (not checked).
    package init(uniqueMembers members: [Member]) {
        self.members = members
    }

    package var startIndex: Int { members.startIndex }
    package var endIndex: Int { members.endIndex }
    package subscript(position: Int) -> Member { members[position] }

    package var keys: [String] { members.map(\.key) }

    package func index(forKey key: String) -> Int? {
        members.firstIndex { $0.key == key }
    }

    /// The value for `key`; setting nil removes the member.
    package subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = index(forKey: key) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        return members.remove(at: index).value
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        if lhs.members.count > 16 {
            var table: [String: JSONValue] = [:]
            table.reserveCapacity(rhs.members.count)
            for (key, value) in rhs.members { table[key] = value }
            return lhs.members.allSatisfy { table[$0.key] == $0.value }
        }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    package func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-member hashes commutatively.
        var sum = 0
        for (key, value) in members {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            sum = sum &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(sum)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.lazy.map { (key: $0.0, value: $0.1) })
    }
}
