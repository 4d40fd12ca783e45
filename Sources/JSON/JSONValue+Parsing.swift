import CJansson

extension JSONValue {
    /// Parses one JSON value (any kind at the top level) from UTF-8 bytes with jansson.
    ///
    /// Duplicate object keys are rejected (the message names the key); `\u0000`
    /// is allowed inside strings; NaN and Infinity are not JSON and are
    /// rejected; integers must fit in 64 bits. Trailing non-whitespace after the
    /// value is an error. An input that is empty or only whitespace throws
    /// `.emptyInput` ("empty body: expected a JSON value"). Nesting is limited
    /// to jansson's depth of 2048. Any thread may call this.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw JSONParseError(code: .emptyInput, operation: "json_loadb", line: 1, column: 0,
                                 position: bytes.count, janssonText: "",
                                 message: "empty body: expected a JSON value")
        }
        var error = json_error_t()
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        guard let root = json_loadb(base, bytes.count, tonearm_json_load_flags(), &error) else {
            throw JSONParseError(jansson: error, operation: "json_loadb")
        }
        defer { tonearm_json_decref(root) }
        return JSONValue(borrowing: root)
    }

    /// Parses one JSON value from UTF-8 bytes (see `parse(_:)` for the rules).
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        // withUnsafeBytes rethrows untyped errors: carry the result out instead.
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }.get()
    }

    /// Parses one JSON value from a string (see `parse(_:)` for the rules).
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }

    /// Converts a jansson tree into a `JSONValue` without taking ownership of `json`.
    init(borrowing json: UnsafeMutablePointer<json_t>) {
        switch tonearm_json_typeof(json) {
        case JSON_NULL: self = .null
        case JSON_TRUE: self = .bool(true)
        case JSON_FALSE: self = .bool(false)
        case JSON_INTEGER: self = .int(Int64(json_integer_value(json)))
        case JSON_REAL: self = .double(json_real_value(json))
        case JSON_STRING:
            self = .string(Self.string(json_string_value(json), count: json_string_length(json)))
        case JSON_ARRAY:
            let count = json_array_size(json)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                elements.append(JSONValue(borrowing: json_array_get(json, index)))
            }
            self = .array(elements)
        case JSON_OBJECT:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(json_object_size(json))
            var iter = json_object_iter(json)
            while let current = iter {
                let key = Self.string(json_object_iter_key(current), count: json_object_iter_key_len(current))
                members.append((key, JSONValue(borrowing: json_object_iter_value(current))))
                iter = json_object_iter_next(json, current)
            }
            // jansson rejected duplicates while parsing, so the keys are unique.
            self = .object(JSONObject(uniqueMembers: members))
        default:
            self = .null
        }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }
}

extension JSONParseError {
    /// Builds the error from jansson's `json_error_t`, clarifying some of its texts.
    init(jansson error: json_error_t, operation: String) {
        var error = error
        let text = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let rawCode = tonearm_json_error_code(&error)
        let code: Code
        switch rawCode {
        case json_error_out_of_memory: code = .outOfMemory
        case json_error_stack_overflow: code = .stackOverflow
        case json_error_invalid_utf8: code = .invalidUTF8
        case json_error_premature_end_of_input: code = .prematureEndOfInput
        case json_error_end_of_input_expected: code = .endOfInputExpected
        case json_error_invalid_syntax: code = .invalidSyntax
        case json_error_null_character: code = .nullCharacter
        case json_error_null_byte_in_key: code = .nullByteInKey
        case json_error_duplicate_key: code = .duplicateKey
        case json_error_numeric_overflow: code = .numericOverflow
        default: code = .other(rawCode.rawValue)
        }
        let message: String
        switch code {
        case .numericOverflow where text.hasPrefix("too big integer"):
            message = "integer out of range (must fit in 64 bits: -9223372036854775808...9223372036854775807)"
                + Self.near(text)
        case .numericOverflow where text.hasPrefix("real number overflow"):
            message = "number out of range for a double" + Self.near(text)
        case .stackOverflow:
            message = "nesting too deep (limit 2048 levels)"
        case .duplicateKey:
            // jansson: `duplicate object key near '"volume"'` → `duplicate key "volume"`.
            var token = Self.near(text).dropFirst(" near ".count)
            if token.count >= 2, token.first == "'", token.last == "'" { token = token.dropFirst().dropLast() }
            message = token.isEmpty ? "duplicate key" : "duplicate key \(token)"
        case .endOfInputExpected:
            message = "unexpected content after the JSON value" + Self.near(text)
        default:
            message = text
        }
        self.init(code: code, operation: operation, line: Int(error.line), column: Int(error.column),
                  position: Int(error.position), janssonText: text, message: message)
    }

    /// The " near '…'" tail of a jansson message, or "".
    private static func near(_ text: String) -> String {
        guard let range = text.firstRange(of: " near ") else { return "" }
        return String(text[range.lowerBound...])
    }
}
