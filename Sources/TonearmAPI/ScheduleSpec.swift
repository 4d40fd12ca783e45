import AudioEngine
import HTTPServer
import JSON

/// Where and how an item goes on a node's timeline: the segment, the start and the
/// callback type. Read from a JSON body or, for uploaded bytes, from the query. A plain value.
struct ScheduleOptions: Sendable {
    var startingFrame: Int64 = 0
    /// nil: to the end of the sound.
    var frameCount: Int64?
    /// A sample time on the node's timeline; nil: right after the previous item.
    var at: Int64?
    var callbackType: CompletionCallbackType = .dataConsumed
    var id: String?

    init() {}

    init(reading reader: inout JSONObjectReader) throws(JSONFieldError) {
        startingFrame = Int64(try reader.optionalInt("startingFrame") ?? 0)
        frameCount = try reader.optionalInt("frameCount").map(Int64.init)
        if var at = try reader.optionalObject("at") {
            self.at = Int64(try at.int("sampleTime"))
            try at.finish()
        }
        if let field = reader.optionalField("callbackType"), !field.value.isNull {
            let text = try field.string()
            guard let type = CompletionCallbackType(rawValue: text) else {
                throw JSONFieldError(.outOfRange, path: field.path, message: "\(field.path): must be one of dataConsumed, dataRendered, dataPlayedBack, got '\(text)'")
            }
            callbackType = type
        }
        id = try reader.optionalString("id")
    }

    /// For bytes: `?startingFrame=&frameCount=&sampleTime=&callbackType=&id=`.
    init(query request: HTTPRequest) throws(APIError) {
        func integer(_ name: String) throws(APIError) -> Int64? {
            guard let text = request.queryValue(name) else { return nil }
            guard let v = Int64(text) else { throw .invalid("\(name): '\(text)' is not an integer") }
            return v
        }
        startingFrame = try integer("startingFrame") ?? 0
        frameCount = try integer("frameCount")
        at = try integer("sampleTime")
        if let text = request.queryValue("callbackType") {
            guard let type = CompletionCallbackType(rawValue: text) else {
                throw .invalid("callbackType: must be one of dataConsumed, dataRendered, dataPlayedBack, got '\(text)'")
            }
            callbackType = type
        }
        id = request.queryValue("id")
    }
}

/// A JSON schedule item: a sound (`url`: a media URL or path; or `player`: that player's
/// sound, uploaded bytes included) and its options.
struct ScheduleSpec: Sendable {
    var url: String?
    var player: String?
    var options: ScheduleOptions

    init(reading reader: inout JSONObjectReader) throws(APIError) {
        let (url, player, options) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.optionalString("url"), try reader.optionalString("player"), try ScheduleOptions(reading: &reader))
        }
        guard (url == nil) != (player == nil) else {
            throw .invalid("url or player: name the sound with one of them (a media URL or path, or a player whose sound to use)")
        }
        self.url = url
        self.player = player
        self.options = options
    }
}
