import CMPG123

/// A failure reported by libmpg123: the library's error code, its message and the
/// operation that failed. Decoders turn it into a `DecodeError` for users.
///
/// Thread rules: a plain value; any thread.
package struct MPG123Error: Error, Sendable, CustomStringConvertible {
    /// The `mpg123_errors` code (for example `MPG123_OUT_OF_SYNC`).
    package var code: Int32
    /// The libmpg123 call that failed, e.g. `mpg123_open_handle`.
    package var operation: String
    /// libmpg123's own text for `code`.
    package var message: String

    package init(code: Int32, operation: String, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.message = message ?? String(cString: mpg123_plain_strerror(code))
    }

    /// The error recorded on `handle` after `operation` failed.
    init(handle: OpaquePointer?, operation: String) {
        let code = handle.map { mpg123_errcode($0) } ?? Int32(MPG123_ERR.rawValue)
        self.init(code: code, operation: operation)
    }

    package var description: String {
        // libmpg123's texts usually end in "(code N)" already.
        "\(operation) failed: \(message)" + (message.contains("code \(code)") ? "" : " (mpg123 code \(code))")
    }
}
