/// One MPEG audio frame header (Layer I/II/III, MPEG-1/2/2.5), parsed from 4 bytes.
/// Used by `FormatProbe` to recognise MP3 data strictly and by `MPG123Decoder` to find
/// the Xing/Info frame count.
///
/// Thread rules: a plain value; any thread.
struct MPEGFrameHeader: Equatable {
    enum Version: Equatable { case mpeg1, mpeg2, mpeg25 }

    var version: Version
    /// 1, 2 or 3.
    var layer: Int
    var bitRateKbps: Int
    var sampleRate: Int
    var padding: Bool
    var isMono: Bool

    private static let bitRates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // V1 L1
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],    // V1 L2
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],     // V1 L3
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],    // V2 L1
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],         // V2 L2/L3
    ]

    /// Parses `b0…b3`; nil unless they form a valid header (no free format, no reserved values).
    init?(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 3 {
        case 0: version = .mpeg25
        case 2: version = .mpeg2
        case 3: version = .mpeg1
        default: return nil
        }
        let layerBits = (b1 >> 1) & 3
        guard layerBits != 0 else { return nil }
        layer = 4 - Int(layerBits)
        let bitRateIndex = Int(b2 >> 4)
        guard bitRateIndex != 0, bitRateIndex != 15 else { return nil }
        let rateIndex = Int((b2 >> 2) & 3)
        guard rateIndex != 3 else { return nil }
        guard b3 & 3 != 2 else { return nil } // reserved emphasis
        let table: Int
        switch (version, layer) {
        case (.mpeg1, let l): table = l - 1
        case (_, 1): table = 3
        default: table = 4
        }
        bitRateKbps = Self.bitRates[table][bitRateIndex]
        let base = [44100, 48000, 32000][rateIndex]
        sampleRate = version == .mpeg1 ? base : version == .mpeg2 ? base / 2 : base / 4
        padding = (b2 >> 1) & 1 == 1
        isMono = b3 >> 6 == 3
    }

    /// Parses the header at `offset` in `bytes`.
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        self.init(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
    }

    /// PCM frames one MPEG frame decodes to.
    var samplesPerFrame: Int {
        switch layer {
        case 1: return 384
        case 2: return 1152
        default: return version == .mpeg1 ? 1152 : 576
        }
    }

    /// Frame length in bytes, header included.
    var length: Int {
        let pad = padding ? 1 : 0
        switch layer {
        case 1: return (12 * bitRateKbps * 1000 / sampleRate + pad) * 4
        case 2: return 144 * bitRateKbps * 1000 / sampleRate + pad
        default: return (version == .mpeg1 ? 144 : 72) * bitRateKbps * 1000 / sampleRate + pad
        }
    }

    /// Bytes of Layer III side information after the header (where a Xing/Info tag starts).
    var sideInfoSize: Int {
        version == .mpeg1 ? (isMono ? 17 : 32) : (isMono ? 9 : 17)
    }

    /// Whether `other` can follow this header in the same stream.
    func isCompatible(with other: MPEGFrameHeader) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
    }
}
