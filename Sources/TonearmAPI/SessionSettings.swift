import Foundation
import JSON

/// A player's audio-session settings (AVAudioSession's category and options, per player):
/// whether starting it interrupts or ducks the others, and whether it resumes after an
/// interruption. A plain value; any thread.
///
/// The rule: a player *mixes with others* when its category is `ambient` or it has any of
/// the options `mixWithOthers`, `duckOthers`, `interruptSpokenAudioAndMixWithOthers` (as
/// in AVAudioSession, the last two imply mixWithOthers). Starting a player that does not
/// mix interrupts every playing player that does not mix either; players that mix are
/// never interrupted. Starting a player with `duckOthers` lowers every other playing
/// player by `duckDB` until it ends.
struct SessionSettings: Sendable, Equatable {
    enum Category: String, Sendable, CaseIterable {
        case ambient, soloAmbient, playback
    }

    enum Option: String, Sendable, CaseIterable {
        case mixWithOthers, duckOthers, interruptSpokenAudioAndMixWithOthers
    }

    var category: Category = .soloAmbient
    /// Without duplicates, in the order given.
    var options: [Option] = []
    var resumeAfterInterruption = true
    /// How far (dB, ≤ 0) a `duckOthers` player lowers the others.
    var duckDB = -15.0

    static let duckRange: ClosedRange<Double> = -96...0
    /// Seconds of the volume ramps that duck and restore.
    static let duckRampSeconds = 0.3

    var mixesWithOthers: Bool { category == .ambient || !options.isEmpty }
    var ducksOthers: Bool { options.contains(.duckOthers) }
    /// The linear gain factor of the duck.
    var duckFactor: Double { duckDB <= -96 ? 0 : pow(10, duckDB / 20) }

    static func readCategory(_ field: JSONField) throws(JSONFieldError) -> Category {
        let text = try field.string()
        guard let value = Category(rawValue: text) else {
            throw JSONFieldError(.outOfRange, path: field.path,
                                 message: "\(field.path) must be one of \(Category.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return value
    }

    static func readOptions(_ field: JSONField) throws(JSONFieldError) -> [Option] {
        var list: [Option] = []
        for element in try field.elements() {
            let text = try element.string()
            guard let option = Option(rawValue: text) else {
                throw JSONFieldError(.outOfRange, path: element.path,
                                     message: "\(element.path) must be one of \(Option.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
            }
            if !list.contains(option) { list.append(option) }
        }
        return list
    }
}
