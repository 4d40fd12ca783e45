import Testing
import JSON

@Suite struct JSONValueTests {
    @Test func literalsBuildTheExpectedCases() {
        let value: JSONValue = ["id": .string("p1"), "volume": 0.5, "loops": 3, "ok": true, "tags": ["a", "b"], "none": nil]
        #expect(value["id"] == .string("p1"))
        #expect(value["volume"] == .double(0.5))
        #expect(value["loops"] == .int(3))
        #expect(value["ok"] == .bool(true))
        #expect(value["tags"] == .array([.string("a"), .string("b")]))
        #expect(value["none"] == .null)
        #expect(value["missing"] == nil)
        #expect(value.objectValue?.keys == ["id", "volume", "loops", "ok", "tags", "none"])
    }

    @Test func accessors() {
        #expect(JSONValue.int(3).doubleValue == 3)
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
        #expect(JSONValue.int(3).intValue == 3)
        #expect(JSONValue.double(2.0).intValue == 2)
        #expect(JSONValue.double(2.5).intValue == nil)
        #expect(JSONValue.double(1e30).intValue == nil)
        #expect(JSONValue.string("3").intValue == nil)
        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.int(0).boolValue == nil)
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.null.isNull)
        #expect(JSONValue.array([1, 2])[1] == .int(2))
        #expect(JSONValue.array([1, 2])[2] == nil)
        #expect(JSONValue.array([]).arrayValue == [])
        #expect(JSONValue.int(1).typeName == "integer")
    }

    @Test func objectKeepsInsertionOrderAndReplacesInPlace() {
        var object: JSONObject = ["z": 1, "a": 2, "m": 3]
        object["a"] = "two"
        object["b"] = 4
        #expect(object.keys == ["z", "a", "m", "b"])
        #expect(object["a"] == .string("two"))
        object["z"] = nil
        #expect(object.keys == ["a", "m", "b"])
        #expect(object.removeValue(forKey: "m") == .int(3))
        #expect(JSONValue.object(object).serializedString() == #"{"a":"two","b":4}"#)
    }

    @Test func objectEqualityAndHashIgnoreOrder() {
        let a: JSONValue = ["x": 1, "y": [true, nil]]
        let b: JSONValue = ["y": [true, nil], "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["x": 1, "y": [true]])
        #expect(a != ["x": 1])
        #expect(Set([a, b]).count == 1)
        // Larger objects take the table path.
        let keys = (0..<40).map { "k\($0)" }
        let big = JSONValue.object(JSONObject(keys.map { (key: $0, value: JSONValue.string($0)) }))
        let reversed = JSONValue.object(JSONObject(keys.reversed().map { (key: $0, value: JSONValue.string($0)) }))
        #expect(big == reversed)
        #expect(big.hashValue == reversed.hashValue)
    }

    @Test func intAndDoubleAreDistinctValues() {
        #expect(JSONValue.int(2) != JSONValue.double(2))
    }
}
