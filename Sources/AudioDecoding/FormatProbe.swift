/// Recognises a sound's format from its first bytes (never from a file name) and checks
/// the cheap structural facts that tell a cut-off file from a complete one.
///
/// Thread rules: stateless; call from any thread (it reads through the caller's `ByteSource`).
enum FormatProbe {
    /// What the bytes are.
    enum Format: Equatable {
        /// MPEG audio; `firstFrame` is the byte offset of the first frame after any ID3v2 tags.
        case mpeg(firstFrame: Int64, header: MPEGFrameHeader)
        case wav, aiff, flac, ogg
    }

    /// How many bytes the probe looks at after the tags for the first MPEG frame.
    static let mpegSearchWindow = 8192
    /// How many consecutive valid MPEG frame headers must chain (fewer only when the data ends).
    static let requiredMPEGFrames = 3

    /// Bytes after the last MPEG frame that are ignored rather than reported as damage.
    static let trailingJunkAllowance: Int64 = 4096

    static let supportedList = "MP3, WAV, AIFF, FLAC, Ogg Vorbis, Opus"

    /// Detects the format of `source`; throws `DecodeError` (.empty, .unsupportedFormat,
    /// .truncated, .corrupt) when it is none of the supported ones.
    static func detect(_ source: ByteSource) throws -> Format {
        guard source.size > 0 else { throw DecodeError(.empty, "the sound is empty (0 bytes)") }
        if let container = container(source.read(at: 0, count: 12)) { return container }
        if String(decoding: source.read(at: 0, count: 3), as: UTF8.self) == "ID3" { return try detectAfterID3(source) }
        if let (offset, header) = findMPEGStream(source, from: 0) {
            return .mpeg(firstFrame: offset, header: header)
        }
        throw DecodeError(.unsupportedFormat,
                          "not an audio file: the first bytes match no supported format (\(supportedList))")
    }

    /// The non-MPEG format whose magic bytes open `head`, if any.
    private static func container(_ head: [UInt8]) -> Format? {
        func ascii(_ range: Range<Int>) -> String {
            guard range.upperBound <= head.count else { return "" }
            return String(decoding: head[range], as: UTF8.self)
        }
        if (ascii(0..<4) == "RIFF" || ascii(0..<4) == "RF64") && ascii(8..<12) == "WAVE" { return .wav }
        if ascii(0..<4) == "FORM" && (ascii(8..<12) == "AIFF" || ascii(8..<12) == "AIFC") { return .aiff }
        if ascii(0..<4) == "fLaC" { return .flac }
        if ascii(0..<4) == "OggS" { return .ogg }
        return nil
    }

    /// The offset just past the ID3v2 tag(s) at the start (0 without one); throws when a tag
    /// claims more bytes than the data has.
    static func endOfID3Tags(_ source: ByteSource) throws -> Int64 {
        var offset: Int64 = 0
        while true {
            let tag = source.read(at: offset, count: 10)
            guard tag.count == 10, tag[0] == 0x49, tag[1] == 0x44, tag[2] == 0x33 else { break }
            guard tag[6] & 0x80 == 0, tag[7] & 0x80 == 0, tag[8] & 0x80 == 0, tag[9] & 0x80 == 0 else {
                throw DecodeError(.corrupt, "corrupt MP3: the ID3v2 tag at byte \(offset) has an invalid size")
            }
            let body = Int64(tag[6]) << 21 | Int64(tag[7]) << 14 | Int64(tag[8]) << 7 | Int64(tag[9])
            let footer: Int64 = tag[5] & 0x10 != 0 ? 10 : 0
            let end = offset + 10 + body + footer
            guard end < source.size else {
                throw DecodeError(.truncated,
                                  "truncated MP3: the ID3v2 tag claims \(end) bytes but the file has only \(source.size)")
            }
            offset = end
        }
        return offset
    }

    /// Skips one or more ID3v2 tags and requires MPEG audio frames after them (or, as some
    /// taggers write, a FLAC stream, which libsndfile opens past the tag).
    private static func detectAfterID3(_ source: ByteSource) throws -> Format {
        let offset = try endOfID3Tags(source)
        if container(source.read(at: offset, count: 12)) == .flac { return .flac }
        if let (frame, header) = findMPEGStream(source, from: offset) {
            return .mpeg(firstFrame: frame, header: header)
        }
        throw DecodeError(.corrupt, "corrupt MP3: no MPEG audio frames follow the ID3v2 tag")
    }

    /// The first offset in the search window from `start` where at least
    /// `requiredMPEGFrames` valid, compatible frame headers chain (or chain to the end of the data).
    private static func findMPEGStream(_ source: ByteSource, from start: Int64) -> (Int64, MPEGFrameHeader)? {
        let window = source.read(at: start, count: mpegSearchWindow + 4)
        guard window.count >= 4 else { return nil }
        for i in 0..<(window.count - 3) where window[i] == 0xFF {
            guard let first = MPEGFrameHeader(window, at: i) else { continue }
            if chains(source, at: start + Int64(i), first: first) { return (start + Int64(i), first) }
        }
        return nil
    }

    private static func chains(_ source: ByteSource, at offset: Int64, first: MPEGFrameHeader) -> Bool {
        var position = offset + Int64(first.length)
        for _ in 1..<requiredMPEGFrames {
            if position == source.size { return true }
            let bytes = source.read(at: position, count: 4)
            // A trailing tag after the audio ends the chain cleanly.
            if bytes.count >= 3, String(decoding: bytes[0..<3], as: UTF8.self) == "TAG" { return true }
            if bytes.count == 4, String(decoding: bytes, as: UTF8.self) == "APET" { return true }
            // Data ending inside a frame: valid so far (truncation is reported by the decoder).
            if bytes.count < 4 { return true }
            guard let next = MPEGFrameHeader(bytes, at: 0), next.isCompatible(with: first) else { return false }
            position += Int64(next.length)
            if position > source.size { return true }
        }
        return true
    }

    /// Where a walk over the MPEG frame headers stopped.
    struct MPEGWalk: Equatable {
        enum End: Equatable {
            /// At the end of the data or at a trailing tag.
            case clean
            /// The last frame runs past the end of the data.
            case truncated
            /// Bytes that are no valid, compatible frame header where one must be.
            case corrupt(offset: Int64)
        }
        var frames: Int64
        /// PCM frames in the complete MPEG frames walked (before gapless trimming).
        var samples: Int64
        var end: End
    }

    /// Follows the chain of frame headers from `firstFrame` to the end of the data (reading
    /// in 64 KB blocks, headers only), so a cut or damaged stream is told from a complete one;
    /// libmpg123 reports both as a normal end of track.
    static func walkMPEG(_ source: ByteSource, firstFrame: Int64, header: MPEGFrameHeader) -> MPEGWalk {
        var blockStart: Int64 = 0
        var block: [UInt8] = []
        var walk = MPEGWalk(frames: 0, samples: 0, end: .clean)
        var position = firstFrame
        while position < source.size {
            // Keep the next 10 bytes (header or tag magic) inside the block.
            if position < blockStart || position + 10 > blockStart + Int64(block.count) {
                blockStart = position
                block = source.read(at: position, count: 1 << 16)
            }
            let i = Int(position - blockStart)
            let available = block.count - i
            func byte(_ k: Int) -> UInt8 { k < available ? block[i + k] : 0 }
            func magic(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard count <= available else { return false }
                let p = text.utf8Start
                for k in 0..<count where block[i + k] != p[k] { return false }
                return true
            }
            if magic("TAG") || magic("APETAGEX") || magic("LYRICS") || magic("ID3") { return walk }
            guard available >= 4, let next = MPEGFrameHeader(byte(0), byte(1), byte(2), byte(3)),
                  next.isCompatible(with: header) else {
                // A few KB of trailing junk (zero padding, unknown tags) is common and harmless;
                // damage there still shows when a Xing/Info frame count is not reached.
                if source.size - position <= trailingJunkAllowance { return walk }
                walk.end = available < 4 ? .truncated : .corrupt(offset: position)
                return walk
            }
            if position + Int64(next.length) > source.size {
                walk.end = .truncated
                return walk
            }
            walk.frames += 1
            walk.samples += Int64(next.samplesPerFrame)
            position += Int64(next.length)
        }
        return walk
    }

    /// What a Xing/Info tag (and the LAME tag after it) in the first frame declares.
    struct XingInfo: Equatable {
        /// MPEG frames after the tag frame.
        var frames: Int64
        /// Encoder delay and padding in PCM frames (0 without a LAME tag).
        var delay: Int
        var padding: Int

        /// The PCM frames a gapless decoder outputs.
        func samples(_ header: MPEGFrameHeader) -> Int64 {
            max(0, frames * Int64(header.samplesPerFrame) - Int64(delay + padding))
        }
    }

    /// The frame count (and LAME delay/padding) a Xing/Info tag in the first frame declares, if any.
    static func xingInfo(_ source: ByteSource, firstFrame: Int64, header: MPEGFrameHeader) -> XingInfo? {
        guard header.layer == 3 else { return nil }
        let bytes = source.read(at: firstFrame, count: header.length)
        let o = 4 + header.sideInfoSize
        guard bytes.count >= o + 12 else { return nil }
        let id = String(decoding: bytes[o..<o + 4], as: UTF8.self)
        guard id == "Xing" || id == "Info" else { return nil }
        func be32(_ p: Int) -> UInt32 {
            UInt32(bytes[p]) << 24 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 8 | UInt32(bytes[p + 3])
        }
        let flags = be32(o + 4)
        guard flags & 1 != 0 else { return nil }
        var info = XingInfo(frames: Int64(be32(o + 8)), delay: 0, padding: 0)
        var lame = o + 8
        if flags & 1 != 0 { lame += 4 }
        if flags & 2 != 0 { lame += 4 }
        if flags & 4 != 0 { lame += 100 }
        if flags & 8 != 0 { lame += 4 }
        if bytes.count >= lame + 24 {
            let d = lame + 21
            info.delay = Int(bytes[d]) << 4 | Int(bytes[d + 1]) >> 4
            info.padding = Int(bytes[d + 1] & 0x0F) << 8 | Int(bytes[d + 2])
        }
        return info
    }

    /// Whether a RIFF/RF64 or FORM container declares more bytes than the data holds.
    /// Returns (declared, actual) when it does.
    static func containerShortfall(_ source: ByteSource, format: Format) -> (Int64, Int64)? {
        let head = source.read(at: 0, count: 8)
        guard head.count == 8 else { return nil }
        let declared: Int64
        switch format {
        case .wav:
            guard head[0] == 0x52 else { return nil } // RF64 keeps its size elsewhere
            declared = Int64(UInt32(head[4]) | UInt32(head[5]) << 8 | UInt32(head[6]) << 16 | UInt32(head[7]) << 24)
        case .aiff:
            declared = Int64(UInt32(head[4]) << 24 | UInt32(head[5]) << 16 | UInt32(head[6]) << 8 | UInt32(head[7]))
        default:
            return nil
        }
        // Streaming writers leave 0 or 0xFFFFFFFF: no claim to check.
        guard declared != 0, declared != 0xFFFF_FFFF else { return nil }
        let total = declared + 8
        // One byte of slack: some writers forget the pad byte.
        return total > source.size + 1 ? (total, source.size) : nil
    }
}
