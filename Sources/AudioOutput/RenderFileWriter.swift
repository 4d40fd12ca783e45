import AudioCore
import CSndFile

/// Writes an offline render to a file: WAV as 32-bit float (the same bytes `--output wav`
/// writes) or FLAC as 24-bit PCM (libsndfile). Thread rules: one thread at a time.
package final class RenderFileWriter {
    package enum Format: String, Sendable, CaseIterable {
        case wav, flac

        package var mimeType: String { self == .wav ? "audio/wav" : "audio/flac" }
    }

    private let wav: WAVFileWriter?
    private var flac: OpaquePointer?
    private let path: String

    /// Creates (truncates) `path`. Throws `OutputError`.
    package init(path: String, format: Format, sampleRate: Int, channels: Int) throws {
        self.path = path
        switch format {
        case .wav:
            let w = WAVFileWriter(path: path, sampleRate: sampleRate, channels: channels, bufferBytes: 1 << 20)
            try w.create()
            wav = w
        case .flac:
            wav = nil
            var info = SF_INFO()
            info.samplerate = Int32(sampleRate)
            info.channels = Int32(channels)
            info.format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
            guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
                throw OutputError(.openFailed, "FLAC file '\(path)': \(String(cString: sf_strerror(nil)))")
            }
            flac = file
            // Full-scale floats map to the full 24-bit range, clipped rather than wrapped.
            sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        }
    }

    deinit { try? close() }

    /// Appends `frames` interleaved frames.
    package func append(_ samples: UnsafePointer<Float>, frames: Int) throws {
        if let wav { return try wav.append(samples, frames: frames) }
        guard let flac else { return }
        if sf_writef_float(flac, samples, sf_count_t(frames)) != sf_count_t(frames) {
            throw OutputError(.writeFailed, "FLAC file '\(path)': \(String(cString: sf_strerror(flac)))")
        }
    }

    /// Finishes the file (header, last frames). Idempotent.
    package func close() throws {
        try wav?.close()
        if let flac {
            self.flac = nil
            if sf_close(flac) != 0 { throw OutputError(.writeFailed, "FLAC file '\(path)': could not be finished") }
        }
    }
}
