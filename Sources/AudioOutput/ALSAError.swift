import AudioCore
import CALSA

/// A failed ALSA call: the (negative) error code it returned, the call, and the PCM name.
/// Any thread. Converted to `OutputError` at the `OutputSink` boundary.
package struct ALSAError: Error, Sendable, CustomStringConvertible {
    /// The negative errno-style code ALSA returned.
    package var code: Int32
    /// The ALSA function (and context) that failed, e.g. `snd_pcm_open`.
    package var operation: String
    /// The PCM name, e.g. `hw:1,0`.
    package var device: String

    package init(code: Int32, operation: String, device: String) {
        self.code = code
        self.operation = operation
        self.device = device
    }

    /// ALSA's text for `code`.
    package var reason: String { String(cString: snd_strerror(code)) }

    package var description: String { "ALSA device '\(device)': \(reason) (while \(operation))" }

    /// The same failure as the protocol's error type.
    package func outputError(_ kind: OutputError.Kind) -> OutputError {
        OutputError(kind, description)
    }
}
