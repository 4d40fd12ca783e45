import CMPG123
#if canImport(Glibc)
import Glibc
#endif

/// Decodes MP3 (MPEG-1/2/2.5 Layer III, and Layer I/II) with libmpg123 to interleaved
/// Float32: CBR and VBR, gapless (the LAME tag's encoder delay and padding removed),
/// exact length from a full scan, sample-accurate seeking, ID3v1/v2 tags and the APIC picture.
///
/// Thread rules: create on any thread; then one thread at a time (a decode worker) may call
/// `read` and `seek`. Never the render thread (it allocates and does I/O).
final class MPG123Decoder: AudioDecoder, @unchecked Sendable {
    let settings: SoundSettings
    let frameCount: Int64
    let metadata: SoundMetadata

    private let handle: OpaquePointer
    /// Keeps the in-memory bytes alive while libmpg123 reads them through the callbacks.
    private let stream: MemoryStream?
    private let channels: Int
    /// The frame the next `read` returns.
    private var position: Int64 = 0

    /// `mpg123_init` once per process (harmless on ≥ 1.27, where it is a no-op).
    private static let initialized: Bool = mpg123_init() == Int32(MPG123_OK.rawValue)

    /// Opens MPEG audio whose first frame `FormatProbe` found at `firstFrame`.
    init(input: AudioInput, source: ByteSource, firstFrame: Int64, header: MPEGFrameHeader) throws {
        _ = Self.initialized
        var err: Int32 = 0
        guard let mh = mpg123_new(nil, &err) else {
            throw Self.decodeError(MPG123Error(code: err, operation: "mpg123_new"), "cannot start the MP3 decoder")
        }
        var memory: MemoryStream? = nil
        if case .bytes(let bytes) = input { memory = MemoryStream(bytes) }
        do {
            let facts = try Self.prepare(mh, input: input, stream: memory, source: source,
                                         firstFrame: firstFrame, header: header)
            settings = facts.settings
            frameCount = facts.frameCount
            metadata = facts.metadata
            channels = facts.settings.numberOfChannels
        } catch {
            mpg123_close(mh)
            mpg123_delete(mh)
            throw error
        }
        handle = mh
        stream = memory
    }

    private struct Facts {
        var settings: SoundSettings
        var frameCount: Int64
        var metadata: SoundMetadata
    }

    /// Opens, scans and describes the stream on `mh`.
    private static func prepare(_ mh: OpaquePointer, input: AudioInput, stream: MemoryStream?, source: ByteSource,
                                firstFrame: Int64, header: MPEGFrameHeader) throws -> Facts {
        // libmpg123 reports a cut or damaged stream as a normal end of track: walk the frame
        // headers first (cheap), and compare with the frame count a Xing/Info tag declares.
        let walk = FormatProbe.walkMPEG(source, firstFrame: firstFrame, header: header)
        let xing = FormatProbe.xingInfo(source, firstFrame: firstFrame, header: header)
        let declaredText = xing.map { " of the \(DecodeError.seconds(Double($0.samples(header)) / Double(header.sampleRate))) its header declares" } ?? ""
        let reachedSamples = walk.samples - (xing.map { Int64(header.samplesPerFrame + $0.delay) } ?? 0)
        let reached = DecodeError.seconds(Double(max(0, reachedSamples)) / Double(header.sampleRate))
        switch walk.end {
        case .corrupt(let offset):
            throw DecodeError(.corrupt, "corrupt MP3: damaged MPEG audio data at \(reached)\(declaredText) (byte \(offset))")
        case .truncated:
            throw DecodeError(.truncated, "truncated MP3: the data ends inside a frame at \(reached)\(declaredText)")
        case .clean:
            break
        }

        try open(mh, input: input, stream: stream)

        // Full scan: exact length (gapless) and a complete seek index.
        guard mpg123_scan(mh) == Int32(MPG123_OK.rawValue) else {
            throw decodeError(MPG123Error(handle: mh, operation: "mpg123_scan"), "corrupt MP3: the frames cannot be scanned")
        }
        var rate = 0, channelCount: Int32 = 0, encoding: Int32 = 0
        let formatResult = mpg123_getformat(mh, &rate, &channelCount, &encoding)
        guard formatResult == Int32(MPG123_OK.rawValue) else {
            throw decodeError(MPG123Error(handle: mh, operation: "mpg123_getformat"),
                              "corrupt MP3: no decodable MPEG audio frames")
        }
        guard encoding == Int32(MPG123_ENC_FLOAT_32.rawValue) else {
            throw DecodeError(.io, "the MP3 decoder cannot produce 32-bit float samples (encoding \(encoding))")
        }
        let length = Int64(mpg123_length(mh))
        guard length > 0 else {
            throw DecodeError(.corrupt, "corrupt MP3: no decodable MPEG audio frames")
        }
        // A Xing/Info tag declares how many MPEG frames the encoder wrote: fewer means the
        // file was cut at a frame boundary (or damaged near its end).
        let scannedFrames = Int64(mpg123_framelength(mh))
        if let xing, xing.frames > 0, scannedFrames >= 0, scannedFrames < xing.frames {
            throw DecodeError(.truncated, "truncated MP3: the file holds \(reached)\(declaredText)")
        }
        var info = mpg123_frameinfo2()
        _ = mpg123_info2(mh, &info)
        let duration = Double(length) / Double(rate)
        let audioBytes = max(0, source.size - firstFrame - trailingTagBytes(source))
        let averageBitRate = duration > 0 ? Int((Double(audioBytes) * 8 / duration).rounded()) : Int(info.bitrate) * 1000
        let channelsOut = Int(channelCount)
        let settings = SoundSettings(formatID: "mp3", sampleRate: rate, numberOfChannels: channelsOut,
                                     bitRate: info.vbr == Int32(MPG123_CBR.rawValue) ? Int(info.bitrate) * 1000 : averageBitRate,
                                     bitDepth: nil, channelLayout: channelsOut == 1 ? "mono" : "stereo")
        return Facts(settings: settings, frameCount: length, metadata: readMetadata(mh))
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        guard frames > 0 else { return 0 }
        let frameBytes = channels * MemoryLayout<Float>.size
        let raw = UnsafeMutableRawPointer(buffer)
        var filled = 0
        var idleCalls = 0
        while filled < frames {
            var done = 0
            let result = mpg123_read(handle, raw + filled * frameBytes, (frames - filled) * frameBytes, &done)
            filled += done / frameBytes
            idleCalls = done == 0 ? idleCalls + 1 : 0
            // Never spin on a stream that makes no progress.
            if idleCalls > 64 {
                position += Int64(filled)
                throw DecodeError(.corrupt, "corrupt MP3: decoding stalls at \(DecodeError.seconds(Double(position) / Double(settings.sampleRate)))")
            }
            switch result {
            case Int32(MPG123_OK.rawValue):
                continue
            case Int32(MPG123_NEW_FORMAT.rawValue):
                var rate = 0, channelCount: Int32 = 0, encoding: Int32 = 0
                _ = mpg123_getformat(handle, &rate, &channelCount, &encoding)
                guard rate == settings.sampleRate, Int(channelCount) == channels else {
                    throw DecodeError(.corrupt, "corrupt MP3: the sample rate or channel count changes mid-stream at \(DecodeError.seconds(Double(position) / Double(settings.sampleRate)))")
                }
            case Int32(MPG123_DONE.rawValue):
                position += Int64(filled)
                if filled == 0 && position < frameCount { throw truncated() }
                return filled
            default:
                position += Int64(filled)
                // Junk after the last frame (the scan already measured the length): the end.
                if position >= frameCount { return filled }
                let error = MPG123Error(handle: handle, operation: "mpg123_read")
                throw Self.decodeError(error, "corrupt MP3 at \(DecodeError.seconds(Double(position) / Double(settings.sampleRate)))")
            }
        }
        position += Int64(filled)
        return filled
    }

    func seek(toFrame frame: Int64) throws {
        guard frame >= 0, frame <= frameCount else {
            throw DecodeError(.io, "cannot seek to frame \(frame): the sound has \(frameCount) frames")
        }
        let result = Int64(mpg123_seek(handle, off_t(frame), SEEK_SET))
        guard result >= 0 else {
            throw Self.decodeError(MPG123Error(handle: handle, operation: "mpg123_seek"), "cannot seek in the MP3")
        }
        position = frame
    }

    private func truncated() -> DecodeError {
        let rate = Double(settings.sampleRate)
        return DecodeError(.truncated, "truncated MP3: decoded \(DecodeError.seconds(Double(position) / rate)) of \(DecodeError.seconds(Double(frameCount) / rate))")
    }

    // MARK: - Opening

    private static func open(_ mh: OpaquePointer, input: AudioInput, stream: MemoryStream?) throws {
        let flags = Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | MPG123_FORCE_FLOAT.rawValue
                        | MPG123_PICTURE.rawValue | MPG123_NO_RESYNC.rawValue)
        _ = mpg123_param2(mh, Int32(MPG123_FLAGS.rawValue), flags, 0)
        _ = mpg123_param2(mh, Int32(MPG123_RESYNC_LIMIT.rawValue), 0, 0)
        // Float output at every rate, native channel count.
        _ = mpg123_format_none(mh)
        var rates: UnsafePointer<Int>? = nil
        var count = 0
        mpg123_rates(&rates, &count)
        if let rates {
            for i in 0..<count {
                _ = mpg123_format(mh, rates[i], Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                                  Int32(MPG123_ENC_FLOAT_32.rawValue))
            }
        }
        let result: Int32
        let operation: String
        switch input {
        case .file(let path):
            operation = "mpg123_open"
            result = mpg123_open(mh, path)
        case .bytes:
            operation = "mpg123_open_handle"
            let r = mpg123_replace_reader_handle(mh, { handle, buffer, count in
                guard let handle, let buffer else { return -1 }
                return Unmanaged<MemoryStream>.fromOpaque(handle).takeUnretainedValue().read(into: buffer, count: count)
            }, { handle, offset, whence in
                guard let handle else { return -1 }
                return off_t(Unmanaged<MemoryStream>.fromOpaque(handle).takeUnretainedValue().seek(Int64(offset), whence: whence))
            }, nil)
            guard r == Int32(MPG123_OK.rawValue), let stream else {
                throw decodeError(MPG123Error(handle: mh, operation: "mpg123_replace_reader_handle"), "cannot read the MP3")
            }
            result = mpg123_open_handle(mh, Unmanaged.passUnretained(stream).toOpaque())
        }
        guard result == Int32(MPG123_OK.rawValue) else {
            throw decodeError(MPG123Error(handle: mh, operation: operation), "cannot open the MP3")
        }
    }

    /// Bytes of ID3v1 / APE tags at the end, which are not audio.
    private static func trailingTagBytes(_ source: ByteSource) -> Int64 {
        let tail = source.read(at: max(0, source.size - 128), count: 128)
        if tail.count == 128, tail[0] == 0x54, tail[1] == 0x41, tail[2] == 0x47 { return 128 }
        return 0
    }

    // MARK: - Tags

    private static func readMetadata(_ mh: OpaquePointer) -> SoundMetadata {
        var v1: UnsafeMutablePointer<mpg123_id3v1>? = nil
        var v2: UnsafeMutablePointer<mpg123_id3v2>? = nil
        var metadata = SoundMetadata()
        guard mpg123_id3(mh, &v1, &v2) == Int32(MPG123_OK.rawValue) else { return metadata }
        if let tag = v2?.pointee {
            metadata.title = string(tag.title)
            metadata.artist = string(tag.artist)
            metadata.album = string(tag.album)
            var best: Artwork? = nil
            for i in 0..<Int(tag.pictures) {
                let picture = tag.picture[i]
                guard picture.size > 0, let data = picture.data else { continue }
                let mime = string(withUnsafePointer(to: picture.mime_type) { $0 }) ?? "image/jpeg"
                let art = Artwork(mimeType: mime, bytes: Array(UnsafeBufferPointer(start: data, count: picture.size)))
                // Prefer the front cover (type 3), else the first picture.
                if picture.type == 3 || best == nil { best = art }
                if picture.type == 3 { break }
            }
            metadata.artwork = best
        }
        if let tag = v1?.pointee {
            if metadata.title == nil { metadata.title = fixedString(tag.title) }
            if metadata.artist == nil { metadata.artist = fixedString(tag.artist) }
            if metadata.album == nil { metadata.album = fixedString(tag.album) }
        }
        return metadata
    }

    private static func string(_ s: UnsafeMutablePointer<mpg123_string>?) -> String? {
        guard let s else { return nil }
        return string(UnsafePointer(s))
    }

    private static func string(_ s: UnsafePointer<mpg123_string>) -> String? {
        guard let p = s.pointee.p, s.pointee.fill > 0 else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: p, count: s.pointee.fill).prefix { $0 != 0 }, as: UTF8.self)
        let trimmed = text.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// An ID3v1 fixed-size field (Latin-1, NUL or space padded).
    private static func fixedString<T>(_ field: T) -> String? {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            let text = String(bytes.map { Character(Unicode.Scalar($0)) }).trimmingSpaces()
            return text.isEmpty ? nil : text
        }
    }

    // MARK: - Errors

    static func decodeError(_ error: MPG123Error, _ what: String) -> DecodeError {
        DecodeError(.corrupt, "\(what) (\(error.description))")
    }

}
