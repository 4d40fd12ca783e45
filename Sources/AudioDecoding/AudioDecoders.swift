import AudioCore

/// Opens the right decoder for a sound by probing its bytes (never its extension):
/// MP3 → `MPG123Decoder`; WAV, AIFF, FLAC, Ogg Vorbis, Opus → `SndFileDecoder`.
///
/// Thread rules: any thread; the decoder it returns is then used by one thread at a time.
package enum AudioDecoders {
    /// Opens `input`. A file is probed by reading its first bytes and then decoded in place
    /// (never loaded whole). Throws `DecodeError` for empty, unsupported, truncated or
    /// corrupt input and for files that cannot be read.
    package static func open(_ input: AudioInput) throws -> any AudioDecoder {
        let source = try ByteSource(input)
        let format = try FormatProbe.detect(source)
        switch format {
        case .mpeg(let firstFrame, let header):
            return try MPG123Decoder(input: input, source: source, firstFrame: firstFrame, header: header)
        case .wav, .aiff, .flac, .ogg:
            return try SndFileDecoder(input: input, source: source, format: format)
        }
    }
}
