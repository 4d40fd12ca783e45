/// A request body that is valid JSON but not what the endpoint accepts: a
/// missing or unknown field, a wrong type, a value out of range. `path` names
/// the field (`volume`, `players[2]`, `source.url`; empty for the whole body)
/// and `description` is the sentence for the client, e.g.
/// `volume must be a number between 0 and 1, got 1.5`. The API answers 422.
package struct JSONFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case missing
        case wrongType
        case outOfRange
        case unknownField
    }

    package var kind: Kind
    /// The offending field's path; for `.unknownField`, the first unknown one.
    package var path: String
    package var message: String

    package init(_ kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    package var description: String { message }
}
