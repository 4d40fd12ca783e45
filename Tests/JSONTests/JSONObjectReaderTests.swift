import Testing
import JSON

@Suite struct JSONObjectReaderTests {
    /// The `JSONFieldError` thrown by `body` (nil when it succeeds; a record if it throws something else).
    private func fieldError(_ body: () throws -> Void) -> JSONFieldError? {
        do {
            try body()
            return nil
        } catch let error as JSONFieldError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func readsTypedFields() throws {
        var reader = try JSONObjectReader(JSONValue.parse(#"{"url":"a.mp3","volume":1,"pan":-0.5,"enableRate":true,"numberOfLoops":2.0,"id":null}"#))
        #expect(try reader.string("url") == "a.mp3")
        #expect(try reader.double("volume", in: 0...1) == 1)
        #expect(try reader.optionalDouble("pan", in: -1...1) == -0.5)
        #expect(try reader.optionalBool("enableRate") == true)
        #expect(try reader.optionalInt("numberOfLoops", in: -1...1000) == 2)
        #expect(try reader.optionalString("id") == nil)  // null reads as absent
        #expect(try reader.optionalDouble("rate") == nil)
        try reader.finish()
    }

    @Test func rangeErrorsNameTheField() {
        let error = fieldError {
            var reader = try JSONObjectReader(["volume": 1.5])
            _ = try reader.double("volume", in: 0...1)
        }
        #expect(error?.kind == .outOfRange)
        #expect(error?.path == "volume")
        #expect(error?.description == "volume must be a number between 0 and 1, got 1.5")

        let rate = fieldError {
            var reader = try JSONObjectReader(["rate": 4])
            _ = try reader.optionalDouble("rate", in: 0.5...2)
        }
        #expect(rate?.description == "rate must be a number between 0.5 and 2, got 4")

        let loops = fieldError {
            var reader = try JSONObjectReader(["numberOfLoops": -2])
            _ = try reader.int("numberOfLoops", in: -1...100)
        }
        #expect(loops?.description == "numberOfLoops must be an integer between -1 and 100, got -2")
    }

    @Test func typeErrorsNameTheFieldAndWhatCame() {
        let string = fieldError {
            var reader = try JSONObjectReader(["volume": "loud"])
            _ = try reader.double("volume", in: 0...1)
        }
        #expect(string?.kind == .wrongType)
        #expect(string?.description == "volume must be a number between 0 and 1, got string \"loud\"")

        let fraction = fieldError {
            var reader = try JSONObjectReader(["numberOfLoops": 1.5])
            _ = try reader.int("numberOfLoops")
        }
        #expect(fraction?.description == "numberOfLoops must be an integer, got 1.5")

        let bool = fieldError {
            var reader = try JSONObjectReader(["enableRate": 1])
            _ = try reader.optionalBool("enableRate")
        }
        #expect(bool?.description == "enableRate must be true or false, got 1")

        let null = fieldError {
            var reader = try JSONObjectReader(["url": nil])
            _ = try reader.string("url")
        }
        #expect(null?.description == "url must be a string, got null")

        let notObject = fieldError { _ = try JSONObjectReader([1, 2, 3]) }
        #expect(notObject?.description == "request body must be an object, got an array of 3")
    }

    @Test func missingRequiredField() {
        let error = fieldError {
            var reader = try JSONObjectReader(["volume": 1])
            _ = try reader.string("url")
        }
        #expect(error?.kind == .missing)
        #expect(error?.path == "url")
        #expect(error?.description == "missing required field 'url'")
    }

    @Test func unknownFieldsAreListed() {
        let typo = fieldError {
            var reader = try JSONObjectReader(["volum": 0.5])
            _ = try reader.optionalDouble("volume", in: 0...1)
            _ = try reader.optionalDouble("pan", in: -1...1)
            try reader.finish()
        }
        #expect(typo?.kind == .unknownField)
        #expect(typo?.path == "volum")
        #expect(typo?.description == "unknown field 'volum' (did you mean 'volume'? known fields: volume, pan)")

        let several = fieldError {
            var reader = try JSONObjectReader(["a": 1, "volume": 1, "zzz": 2])
            _ = try reader.optionalDouble("volume")
            try reader.finish()
        }
        #expect(several?.description == "unknown fields 'a', 'zzz' (known fields: volume)")

        let none = fieldError { try JSONObjectReader(["x": 1]).finish() }
        #expect(none?.description == "unknown field 'x' (this object takes no fields)")

        let allowed = fieldError {
            var reader = try JSONObjectReader(["url": "x", "id": "p"])
            reader.allow("id")
            _ = try reader.string("url")
            try reader.finish()
        }
        #expect(allowed == nil)
    }

    @Test func arrayElementsAndNestedObjectsCarryPaths() {
        let element = fieldError {
            var reader = try JSONObjectReader(JSONValue.parse(#"{"players":["a","b",3],"atTime":1}"#))
            _ = try reader.elements("players").map { field throws(JSONFieldError) in try field.string() }
        }
        #expect(element?.path == "players[2]")
        #expect(element?.description == "players[2] must be a string, got 3")

        let nested = fieldError {
            var reader = try JSONObjectReader(["source": ["url": 5, "extra": 1]])
            var source = try reader.object("source")
            _ = try source.string("url")
        }
        #expect(nested?.description == "source.url must be a string, got 5")

        let nestedUnknown = fieldError {
            var reader = try JSONObjectReader(["source": ["url": "u", "extra": 1]])
            var source = try reader.object("source")
            _ = try source.string("url")
            try source.finish()
        }
        #expect(nestedUnknown?.path == "source.extra")
        #expect(nestedUnknown?.description == "unknown field 'source.extra' (known fields: url)")

        let matrix = fieldError {
            var reader = try JSONObjectReader(["channelAssignments": [[0, 1], [2, "x"]]])
            for row in try reader.elements("channelAssignments") {
                for cell in try row.elements() { _ = try cell.int(in: 0...7) }
            }
        }
        #expect(matrix?.description == "channelAssignments[1][1] must be an integer between 0 and 7, got string \"x\"")
    }

    @Test func stringConstraints() {
        let empty = fieldError {
            var reader = try JSONObjectReader(["id": ""])
            _ = try reader.field("id").string(nonEmpty: true, maxLength: 8)
        }
        #expect(empty?.description == "id must not be empty")
        let long = fieldError {
            var reader = try JSONObjectReader(["id": "123456789"])
            _ = try reader.field("id").string(nonEmpty: true, maxLength: 8)
        }
        #expect(long?.description == "id must be at most 8 bytes long, got 9")
    }
}
