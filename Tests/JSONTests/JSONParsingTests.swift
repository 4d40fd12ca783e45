import Testing
import JSON

@Suite struct JSONParsingTests {
    @Test func everyKindParses() throws {
        let value = try JSONValue.parse(#" {"n": null, "t": true, "f": false, "i": -42, "d": 1.5, "s": "hi", "a": [1, [2]], "o": {"k": {}}} "#)
        #expect(value == ["n": nil, "t": true, "f": false, "i": -42, "d": 1.5, "s": "hi", "a": [1, [2]], "o": ["k": [:]]])
    }

    @Test(arguments: ["null", "true", "false", "0", "-7", "3.25", "\"x\"", "[]", "{}"])
    func anyValueAtTopLevel(text: String) throws {
        let value = try JSONValue.parse(text)
        #expect(value.serializedString() == text)
    }

    @Test func keyOrderIsPreserved() throws {
        let text = #"{"zeta":1,"alpha":2,"mid":3,"beta":{"y":1,"x":2}}"#
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "mid", "beta"])
        #expect(value.serializedString() == text)
    }

    @Test func integersStayExact() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .int(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONValue.parse("9007199254740993") == .int(9_007_199_254_740_993))  // not representable as Double
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("-0") == .int(0))
    }

    @Test func unicodeAndEscapesDecode() throws {
        let value = try JSONValue.parse(#"["h\u00e9llo", "\ud83d\ude00", "tab\tnl\nq\"bs\\sl\/", "日本語", "\u0000nul"]"#)
        #expect(value == ["héllo", "😀", "tab\tnl\nq\"bs\\sl/", "日本語", "\u{0}nul"])
    }

    @Test func inputFromBytesAndBuffer() throws {
        let bytes = Array(#"{"a":[1,2]}"#.utf8)
        #expect(try JSONValue.parse(bytes) == ["a": [1, 2]])
        let fromBuffer = try bytes.withUnsafeBytes { buffer in Result { () throws(JSONParseError) in try JSONValue.parse(buffer) } }.get()
        #expect(fromBuffer == ["a": [1, 2]])
    }

    private func parseError(bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    private func parseError(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func multiLineErrorsSayLineAndColumn() throws {
        // Missing colon on line 3.
        let missingColon = try #require(parseError("{\n  \"volume\": 0.5,\n  \"pan\" 1\n}"))
        #expect(missingColon.line == 3)
        #expect(missingColon.column == 9)
        #expect(missingColon.description == "invalid JSON at line 3, column 9: ':' expected near '1'")

        // Trailing comma before the closing brace on line 4.
        let trailingComma = try #require(parseError("{\n  \"a\": 1,\n  \"b\": 2,\n}"))
        #expect(trailingComma.line == 4)
        #expect(trailingComma.column == 1)
        #expect(trailingComma.description.hasPrefix("invalid JSON at line 4, column 1: "))

        // Bad literal on line 2.
        let badLiteral = try #require(parseError("[1,\n tru]"))
        #expect((badLiteral.line, badLiteral.column) == (2, 4))
        #expect(badLiteral.description == "invalid JSON at line 2, column 4: invalid token near 'tru'")

        // The column counts characters, not bytes.
        let afterEmoji = try #require(parseError("[\"😀\" x]"))
        #expect(afterEmoji.column == 6)
        #expect(afterEmoji.position == 9)
        #expect(afterEmoji.janssonText == "']' expected near 'x'")

        // Unterminated input.
        let truncated = try #require(parseError("{\"a\":\n"))
        #expect(truncated.code == .prematureEndOfInput)
        #expect(truncated.line == 2)
        #expect(truncated.description.contains("end of file"))
    }

    @Test func duplicateKeysAreRejectedByName() throws {
        let error = try #require(parseError("{\"volume\": 1,\n \"volume\": 2}"))
        #expect(error.code == .duplicateKey)
        #expect(error.line == 2)
        #expect(error.description == "invalid JSON at line 2, column 9: duplicate key \"volume\"")
        // Nested objects too.
        #expect(parseError(#"{"a":{"x":1,"x":1}}"#)?.message == "duplicate key \"x\"")
        // The same key in different objects is fine.
        #expect(parseError(#"[{"x":1},{"x":2}]"#) == nil)
    }

    @Test(arguments: ["", "   ", "\n\t\r\n"])
    func emptyBody(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .emptyInput)
        #expect(error.description == "empty body: expected a JSON value")
    }

    @Test func trailingGarbage() throws {
        let error = try #require(parseError("{\"a\":1} x"))
        #expect(error.code == .endOfInputExpected)
        #expect(error.description == "invalid JSON at line 1, column 9: unexpected content after the JSON value near 'x'")
        #expect(parseError("[1] [2]")?.code == .endOfInputExpected)
        #expect(parseError("{\"a\":1}  \n ") == nil)
    }

    @Test func integersBeyond64BitsFailClearly() throws {
        let error = try #require(parseError("{\"n\": 9223372036854775808}"))
        #expect(error.code == .numericOverflow)
        #expect(error.description.contains("integer out of range (must fit in 64 bits"))
        #expect(error.column == 25)
        #expect(parseError("1e400")?.message == "number out of range for a double near '1e400'")
    }

    @Test(arguments: ["NaN", "Infinity", "-Infinity", "[nan]", "{\"v\": inf}"])
    func nonFiniteNumbersAreNotJSON(text: String) {
        #expect(parseError(text)?.code == .invalidSyntax)
    }

    @Test func otherMalformedInputs() throws {
        #expect(parseError("{'a': 1}")?.code == .invalidSyntax)
        #expect(parseError("[1,]")?.description == "invalid JSON at line 1, column 4: unexpected token near ']'")
        #expect(parseError(#""\ud800""#)?.message.contains("invalid Unicode") == true)
        #expect(parseError(#"{"a\u0000": 1}"#)?.code == .nullByteInKey)
        #expect(parseError("01")?.code == .invalidSyntax)
        let invalidUTF8 = try #require(parseError(bytes: [0x22, 0xFF, 0x22]))
        #expect(invalidUTF8.code == .invalidUTF8 || invalidUTF8.code == .invalidSyntax)
        #expect(invalidUTF8.operation == "json_loadb")
    }

    @Test func nestingDepthIsLimited() throws {
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(parseError(fine) == nil)
        let tooDeep = String(repeating: "[", count: 3000) + String(repeating: "]", count: 3000)
        let error = try #require(parseError(tooDeep))
        #expect(error.code == .stackOverflow)
        #expect(error.message == "nesting too deep (limit 2048 levels)")
    }
}
