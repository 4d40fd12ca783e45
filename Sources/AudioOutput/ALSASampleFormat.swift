import CALSA

/// The sample format an `ALSASink` negotiated with the device, in order of preference,
/// and the conversion from Float32 it implies. A plain value; any thread.
package enum ALSASampleFormat: Int, Sendable, CaseIterable, CustomStringConvertible {
    case float32 = 0, s32 = 1, s16 = 2

    package var alsa: snd_pcm_format_t {
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .s16: SND_PCM_FORMAT_S16_LE
        }
    }

    package var bytesPerSample: Int {
        switch self {
        case .float32, .s32: 4
        case .s16: 2
        }
    }

    package var description: String {
        switch self {
        case .float32: "FLOAT_LE"
        case .s32: "S32_LE"
        case .s16: "S16_LE"
        }
    }

    /// Converts `count` samples into `destination` (little-endian, clipped, rounded).
    /// No allocation; render thread.
    package func convert(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer) {
        switch self {
        case .float32:
            for i in 0..<count {
                destination.storeBytes(of: source[i].bitPattern.littleEndian, toByteOffset: i * 4, as: UInt32.self)
            }
        case .s32:
            for i in 0..<count {
                let v = (Double(source[i]) * 2_147_483_648).rounded()
                let c = Int32(max(-2_147_483_648, min(2_147_483_647, v.isNaN ? 0 : v)))
                destination.storeBytes(of: c.littleEndian, toByteOffset: i * 4, as: Int32.self)
            }
        case .s16:
            for i in 0..<count {
                let v = (source[i] * 32768).rounded()
                let c = Int16(max(-32768, min(32767, v.isNaN ? 0 : v)))
                destination.storeBytes(of: c.littleEndian, toByteOffset: i * 2, as: Int16.self)
            }
        }
    }
}
