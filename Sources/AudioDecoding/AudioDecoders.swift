import AudioCore

/// Opens the right decoder for a sound by probing its bytes (never its extension).
package enum AudioDecoders {
    package static func open(_ input: AudioInput) throws -> any AudioDecoder {
        throw DecodeError(.unsupportedFormat, "decoders not built yet")
    }
}
