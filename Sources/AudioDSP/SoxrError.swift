/// A failed libsoxr call: soxr's own message and the operation that failed. Any thread.
package struct SoxrError: Error, Sendable, CustomStringConvertible {
    /// soxr's error text (its `soxr_error_t`).
    package var message: String
    /// The soxr function (and context), e.g. `soxr_create 44100→48000 Hz, 2 ch`.
    package var operation: String

    package init(message: String, operation: String) {
        self.message = message
        self.operation = operation
    }

    package var description: String { "soxr: \(message) (while \(operation))" }
}
