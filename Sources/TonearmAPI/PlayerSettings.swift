import JSON

/// The settable properties of a player (SPEC 2.2), each optional: a PATCH body, the extra
/// fields of a create request, or what persistence restores. Parsing validates ranges and
/// names the offending field. A plain value; any thread.
struct PlayerSettings: Sendable, Equatable {
    var volume: Double?
    var pan: Double?
    var enableRate: Bool?
    var rate: Double?
    var numberOfLoops: Int?
    var currentTime: Double?
    var meteringEnabled: Bool?
    /// `.some(nil)` resets to the default mapping.
    var channelAssignments: [Int]??
    var category: SessionSettings.Category?
    var categoryOptions: [SessionSettings.Option]?
    var resumeAfterInterruption: Bool?
    var duckDB: Double?

    static let fieldNames = ["volume", "pan", "enableRate", "rate", "numberOfLoops", "currentTime", "meteringEnabled", "channelAssignments",
                             "category", "categoryOptions", "resumeAfterInterruption", "duckDB"]

    /// Takes the settable fields from `reader` (leaving others for the caller to take or reject).
    init(reading reader: inout JSONObjectReader) throws(JSONFieldError) {
        volume = try reader.optionalDouble("volume", in: 0...1)
        pan = try reader.optionalDouble("pan", in: -1...1)
        enableRate = try reader.optionalBool("enableRate")
        rate = try reader.optionalDouble("rate", in: 0.5...2)
        numberOfLoops = try reader.optionalInt("numberOfLoops")
        currentTime = try reader.optionalDouble("currentTime", in: 0...(Double.greatestFiniteMagnitude))
        meteringEnabled = try reader.optionalBool("meteringEnabled")
        if let field = reader.optionalField("channelAssignments") {
            if field.value.isNull {
                channelAssignments = .some(nil)
            } else {
                var list: [Int] = []
                for element in try field.elements() { list.append(try element.int(in: 0...255)) }
                channelAssignments = .some(list)
            }
        }
        if let field = reader.optionalField("category"), !field.value.isNull { category = try SessionSettings.readCategory(field) }
        if let field = reader.optionalField("categoryOptions"), !field.value.isNull { categoryOptions = try SessionSettings.readOptions(field) }
        resumeAfterInterruption = try reader.optionalBool("resumeAfterInterruption")
        duckDB = try reader.optionalDouble("duckDB", in: SessionSettings.duckRange)
    }

    init() {}

    var isEmpty: Bool { self == PlayerSettings() }

    /// The JSON form persistence writes.
    var json: JSONValue {
        var o = JSONObject()
        if let volume { o["volume"] = .double(volume) }
        if let pan { o["pan"] = .double(pan) }
        if let enableRate { o["enableRate"] = .bool(enableRate) }
        if let rate { o["rate"] = .double(rate) }
        if let numberOfLoops { o["numberOfLoops"] = .int(Int64(numberOfLoops)) }
        if let currentTime { o["currentTime"] = .double(currentTime) }
        if let meteringEnabled { o["meteringEnabled"] = .bool(meteringEnabled) }
        if let channelAssignments { o["channelAssignments"] = channelAssignments.map { .array($0.map { .int(Int64($0)) }) } ?? .null }
        if let category { o["category"] = .string(category.rawValue) }
        if let categoryOptions { o["categoryOptions"] = .array(categoryOptions.map { .string($0.rawValue) }) }
        if let resumeAfterInterruption { o["resumeAfterInterruption"] = .bool(resumeAfterInterruption) }
        if let duckDB { o["duckDB"] = .double(duckDB) }
        return .object(o)
    }
}
