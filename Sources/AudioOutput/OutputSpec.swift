/// The `--output` choice of SPEC §1: `auto | alsa[:DEVICE] | null | wav:PATH`.
/// A plain value; any thread.
package enum OutputSpec: Sendable, Hashable, CustomStringConvertible {
    /// ALSA `default`, falling back to `null` when it cannot be opened.
    case auto
    /// The named ALSA PCM (`default` when none is given).
    case alsa(device: String)
    case null
    case wav(path: String)

    /// Why an `--output` string is malformed; `description` is one line for the user.
    package struct ParseError: Error, Sendable, CustomStringConvertible, Equatable {
        package var input: String
        package var reason: String
        package var description: String {
            "invalid --output '\(input)': \(reason) (expected auto, alsa, alsa:DEVICE, null or wav:PATH)"
        }
    }

    /// Parses the command-line string. Kinds are lower-case; the device or path is taken
    /// verbatim after the first `:`.
    package init(parsing text: String) throws(ParseError) {
        let kind: Substring
        let argument: Substring?
        if let colon = text.firstIndex(of: ":") {
            kind = text[..<colon]
            argument = text[text.index(after: colon)...]
        } else {
            kind = Substring(text)
            argument = nil
        }
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason) }
        switch kind {
        case "auto", "null":
            if argument != nil { throw fail("'\(kind)' takes no argument") }
            self = kind == "auto" ? .auto : .null
        case "alsa":
            guard let argument else { self = .alsa(device: "default"); return }
            if argument.isEmpty { throw fail("the ALSA device name after 'alsa:' is empty") }
            if argument.contains(where: { $0.isWhitespace }) { throw fail("the ALSA device name contains white space") }
            self = .alsa(device: String(argument))
        case "wav":
            guard let argument, !argument.isEmpty else { throw fail("'wav' needs a file path, as in wav:out.wav") }
            self = .wav(path: String(argument))
        case "":
            throw fail("it is empty")
        default:
            throw fail("unknown output kind '\(kind)'")
        }
    }

    package var description: String {
        switch self {
        case .auto: "auto"
        case .alsa(let device): "alsa:\(device)"
        case .null: "null"
        case .wav(let path): "wav:\(path)"
        }
    }
}
