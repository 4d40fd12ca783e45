import AudioCore

/// Builds the sink an `--output` choice names. Control thread (start-up); the sink it
/// returns is not open yet — the engine's render thread opens it.
package enum OutputFactory {
    /// The sink, and for `auto` when ALSA could not be opened, one line saying why `null`
    /// is used instead (the caller logs it).
    package struct Choice: Sendable {
        package var sink: any OutputSink
        package var notice: String?
    }

    /// Parses `text` (see `OutputSpec`) and builds its sink. Throws `OutputSpec.ParseError`.
    package static func make(_ text: String, format: AudioFormat, periodFrames: Int, periods: Int) throws -> Choice {
        try make(OutputSpec(parsing: text), format: format, periodFrames: periodFrames, periods: periods)
    }

    /// Builds the sink for `spec`. For `.auto` this opens and closes ALSA `default` once to
    /// see whether it works (`ALSASink.open` never hangs).
    package static func make(_ spec: OutputSpec, format: AudioFormat, periodFrames: Int, periods: Int,
                             autoDevice: String = "default") -> Choice {
        switch spec {
        case .null:
            return Choice(sink: NullSink(format: format, periodFrames: periodFrames, periods: periods))
        case .wav(let path):
            return Choice(sink: WAVFileSink(path: path, format: format, periodFrames: periodFrames, periods: periods))
        case .alsa(let device):
            return Choice(sink: ALSASink(device: device, format: format, periodFrames: periodFrames, periods: periods))
        case .auto:
            let alsa = ALSASink(device: autoDevice, format: format, periodFrames: periodFrames, periods: periods)
            do {
                try alsa.open()
                alsa.close()
                return Choice(sink: ALSASink(device: autoDevice, format: format, periodFrames: periodFrames, periods: periods))
            } catch {
                return Choice(sink: NullSink(format: format, periodFrames: periodFrames, periods: periods),
                              notice: "output auto: \(error); using the silent null output instead")
            }
        }
    }
}
