import Testing
import JSON

@Suite struct JSONSerializationTests {
    @Test(arguments: [
        (0.1, "0.1"), (-6.02, "-6.02"), (1e-7, "1e-7"), (1e300, "1e300"), (2.0, "2.0"), (-0.0, "-0.0"),
        (123456.789, "123456.789"), (1e16, "1e16"), (1e21, "1e21"), (0.0001, "0.0001"), (1.7976931348623157e308, "1.7976931348623157e308"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"), (0.30000000000000004, "0.30000000000000004"),
    ])
    func doublesPrintShortestRoundTrip(number: Double, expected: String) throws {
        let text = JSONValue.double(number).serializedString()
        #expect(text == expected)
        // And read back as the very same double (through jansson).
        let back = try JSONValue.parse(text)
        #expect(back == .double(number))
        #expect(back.doubleValue?.bitPattern == number.bitPattern)
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity), .double(-.infinity)]).serializedString() == "[null,null,null]")
    }

    @Test func integersPrintExactly() {
        #expect(JSONValue.int(0).serializedString() == "0")
        #expect(JSONValue.int(-42).serializedString() == "-42")
        #expect(JSONValue.int(.max).serializedString() == "9223372036854775807")
        #expect(JSONValue.int(.min).serializedString() == "-9223372036854775808")
    }

    @Test func stringsAreEscaped() throws {
        let text = "q\"b\\s/ nl\n cr\r t\t b\u{8} f\u{C} nul\u{0} us\u{1F} del\u{7F} é 😀 \u{2028}"
        let json = JSONValue.string(text).serializedString()
        #expect(json == #""q\"b\\s/ nl\n cr\r t\t b\b f\f nul\u0000 us\u001f del"# + "\u{7F} é 😀 \u{2028}\"")
        #expect(try JSONValue.parse(json) == .string(text))
        #expect(JSONValue.object(["k\"\n": 1]).serializedString() == #"{"k\"\n":1}"#)
    }

    @Test func compactIsOneLineEvenWithNewlinesInStrings() {
        let value: JSONValue = ["a": ["x\ny", [1, 2, ["b": nil]]], "c": [:], "d": []]
        let text = value.serializedString()
        #expect(!text.contains("\n"))
        #expect(text == #"{"a":["x\ny",[1,2,{"b":null}]],"c":{},"d":[]}"#)
    }

    @Test func prettyIndentsByTwo() {
        let value: JSONValue = ["a": 1, "b": [true, ["c": "d"]], "e": [], "f": [:]]
        #expect(value.serializedString(.pretty) == """
            {
              "a": 1,
              "b": [
                true,
                {
                  "c": "d"
                }
              ],
              "e": [],
              "f": {}
            }
            """)
    }

    /// A mixed document: every kind, unicode, escapes, big ints, nasty doubles.
    static let sample: JSONValue = [
        "id": "player-1", "url": "file:///music/Björk – Jóga.mp3", "volume": 0.1, "pan": -0.25, "rate": 1.0,
        "big": .int(.max), "small": .int(.min), "tiny": 1e-7, "huge": 1e300, "neg": -6.02,
        "flags": [true, false, nil], "nested": ["deeper": ["deepest": [1, 2.5, "three\t\"4\""]]],
        "empty": "", "emptyArray": [], "emptyObject": [:], "control": "\u{1}\u{1F}\n",
    ]

    @Test func roundTripsEveryKind() throws {
        for layout in [JSONValue.Layout.compact, .pretty] {
            let bytes = Self.sample.serialized(layout)
            let back = try JSONValue.parse(bytes)
            #expect(back == Self.sample)
            #expect(back.objectValue?.keys == Self.sample.objectValue?.keys)
            #expect(back.serialized(layout) == bytes)
        }
    }

    @Test func agreesWithJansson() throws {
        // jansson's own dump of the same value parses to the same value and,
        // apart from double formatting, the same bytes.
        for layout in [JSONValue.Layout.compact, .pretty] {
            let jansson = try #require(Self.sample.serializedWithJansson(layout))
            #expect(try JSONValue.parse(jansson) == Self.sample)
        }
        let noDoubles: JSONValue = ["a": [1, "x\u{1}\"é\n", nil, true, [:], []], "b": ["c": -3]]
        for layout in [JSONValue.Layout.compact, .pretty] {
            #expect(noDoubles.serializedWithJansson(layout) == noDoubles.serialized(layout))
        }
    }

    @Test func descriptionIsCompactJSON() {
        #expect(JSONValue.array([1, "a"]).description == #"[1,"a"]"#)
    }
}
