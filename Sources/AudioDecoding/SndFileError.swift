import CSndFile

/// A failure reported by libsndfile: the library's error code, its message and the
/// operation that failed. Decoders turn it into a `DecodeError` for users.
///
/// Thread rules: a plain value; any thread.
package struct SndFileError: Error, Sendable, CustomStringConvertible {
    /// The `sf_error` number (0 when libsndfile set none).
    package var code: Int32
    /// The libsndfile call that failed, e.g. `sf_open_virtual`.
    package var operation: String
    /// libsndfile's own text.
    package var message: String

    package init(code: Int32, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    /// The error recorded on `file` (or the global one when nil) after `operation` failed.
    init(file: OpaquePointer?, operation: String) {
        let code = sf_error(file)
        let message = sf_strerror(file).map { String(cString: $0) } ?? "unknown error"
        self.init(code: code, operation: operation, message: message)
    }

    package var description: String { "\(operation) failed: \(message) (sndfile code \(code))" }
}
