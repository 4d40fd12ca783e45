/// Why a body could not be parsed as JSON, and where: the error type for the
/// jansson library (`operation` names the jansson call that failed).
///
/// `line` and `column` are 1-based as jansson reports them: the column counts
/// characters (not bytes) and points at the last character of the offending
/// token (column 0 of the next line when the input ends after a newline);
/// `position` is the byte offset into the input. `description` is the sentence
/// to show a client, e.g. `invalid JSON at line 3, column 7: '}' expected near 'x'`.
package struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// jansson's `enum json_error_code`, plus `emptyInput` for a body with no value at all.
    package enum Code: Sendable, Hashable {
        case emptyInput
        case outOfMemory
        case stackOverflow
        case invalidUTF8
        case prematureEndOfInput
        case endOfInputExpected
        case invalidSyntax
        case nullCharacter
        case nullByteInKey
        case duplicateKey
        case numericOverflow
        /// Any other jansson code, with its raw value.
        case other(UInt32)
    }

    package var code: Code
    /// The jansson function that failed, e.g. `json_loadb`.
    package var operation: String
    package var line: Int
    package var column: Int
    package var position: Int
    /// jansson's own text, verbatim (e.g. `'}' expected near 'x'`).
    package var janssonText: String
    /// What was wrong, in words a client can act on (jansson's text, clarified for some codes).
    package var message: String

    package init(code: Code, operation: String, line: Int, column: Int, position: Int,
                 janssonText: String, message: String) {
        self.code = code
        self.operation = operation
        self.line = line
        self.column = column
        self.position = position
        self.janssonText = janssonText
        self.message = message
    }

    package var description: String {
        if code == .emptyInput { return message }
        return "invalid JSON at line \(line), column \(column): \(message)"
    }
}
