import CSndFile

/// Decodes WAV, AIFF, FLAC, Ogg Vorbis and Opus with libsndfile to interleaved Float32,
/// from a path or from bytes in memory (through `sf_open_virtual`), with exact seeking.
///
/// Thread rules: create on any thread; then one thread at a time (a decode worker) may call
/// `read` and `seek`. Never the render thread (it allocates and does I/O).
final class SndFileDecoder: AudioDecoder, @unchecked Sendable {
    let settings: SoundSettings
    let frameCount: Int64
    let metadata: SoundMetadata

    private let file: OpaquePointer
    /// Keeps the in-memory bytes alive while libsndfile reads them through the callbacks.
    private let stream: MemoryStream?
    /// The callback table must outlive the SNDFILE (libsndfile keeps a copy, but be safe).
    private let virtualIO: UnsafeMutablePointer<SF_VIRTUAL_IO>?
    private let channels: Int
    private let formatName: String
    /// The frame the next `read` returns.
    private var position: Int64 = 0

    /// Opens a sound `FormatProbe` recognised as `format` (.wav, .aiff, .flac or .ogg).
    init(input: AudioInput, source: ByteSource, format: FormatProbe.Format) throws {
        let name: String
        switch format {
        case .wav: name = "WAV"
        case .aiff: name = "AIFF"
        case .flac: name = "FLAC"
        default: name = "Ogg"
        }
        if let (declared, actual) = FormatProbe.containerShortfall(source, format: format) {
            throw DecodeError(.truncated, "truncated \(name): the header declares \(declared) bytes but the file has only \(actual)")
        }
        if format == .ogg {
            switch OggIntegrity.check(source) {
            case .clean: break
            case .truncated(let offset):
                throw DecodeError(.truncated, "truncated Ogg: the stream stops at byte \(offset) of \(source.size) without its end-of-stream page")
            case .corrupt(let offset):
                throw DecodeError(.corrupt, "corrupt Ogg: the page at byte \(offset) of \(source.size) is damaged (bad checksum or framing)")
            }
        }

        var info = SF_INFO()
        var memory: MemoryStream? = nil
        var vio: UnsafeMutablePointer<SF_VIRTUAL_IO>? = nil
        let opened: OpaquePointer?
        let operation: String
        switch input {
        case .file(let path):
            operation = "sf_open"
            opened = sf_open(path, Int32(SFM_READ), &info)
        case .bytes(let bytes):
            operation = "sf_open_virtual"
            let m = MemoryStream(bytes)
            memory = m
            let table = UnsafeMutablePointer<SF_VIRTUAL_IO>.allocate(capacity: 1)
            table.initialize(to: SF_VIRTUAL_IO(
                get_filelen: { user in
                    sf_count_t(Unmanaged<MemoryStream>.fromOpaque(user!).takeUnretainedValue().bytes.count)
                },
                seek: { offset, whence, user in
                    sf_count_t(Unmanaged<MemoryStream>.fromOpaque(user!).takeUnretainedValue().seek(Int64(offset), whence: whence))
                },
                read: { pointer, count, user in
                    guard let pointer else { return 0 }
                    return sf_count_t(Unmanaged<MemoryStream>.fromOpaque(user!).takeUnretainedValue().read(into: pointer, count: Int(count)))
                },
                write: { _, _, _ in 0 },
                tell: { user in
                    sf_count_t(Unmanaged<MemoryStream>.fromOpaque(user!).takeUnretainedValue().position)
                }))
            vio = table
            opened = sf_open_virtual(table, Int32(SFM_READ), &info, Unmanaged.passUnretained(m).toOpaque())
        }
        guard let sndfile = opened else {
            let error = SndFileError(file: nil, operation: operation)
            vio?.deallocate()
            throw DecodeError(.corrupt, "corrupt or unsupported \(name) data (\(error.description))")
        }
        let major = Int(info.format) & Int(SF_FORMAT_TYPEMASK)
        let subtype = Int(info.format) & Int(SF_FORMAT_SUBMASK)
        let formatID: String
        switch major {
        case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX), Int(SF_FORMAT_RF64): formatID = "wav"
        case Int(SF_FORMAT_AIFF): formatID = "aiff"
        case Int(SF_FORMAT_FLAC): formatID = "flac"
        case Int(SF_FORMAT_OGG): formatID = subtype == Int(SF_FORMAT_OPUS) ? "opus" : "ogg"
        default: formatID = "unknown"
        }
        let bitDepth: Int?
        switch subtype {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8): bitDepth = 8
        case Int(SF_FORMAT_PCM_16): bitDepth = 16
        case Int(SF_FORMAT_PCM_24): bitDepth = 24
        case Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT): bitDepth = 32
        case Int(SF_FORMAT_DOUBLE): bitDepth = 64
        default: bitDepth = nil
        }
        guard formatID != "unknown", info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(sndfile)
            vio?.deallocate()
            if info.frames == 0 && info.channels > 0 {
                throw DecodeError(.empty, "the \(name) file holds no audio frames")
            }
            throw DecodeError(.unsupportedFormat, "unsupported \(name) data: format 0x\(String(info.format, radix: 16)), \(info.channels) channels at \(info.samplerate) Hz")
        }
        let channelCount = Int(info.channels)
        let frames = Int64(info.frames)
        let duration = Double(frames) / Double(info.samplerate)
        let bitRate: Int
        if let bitDepth, formatID != "flac" {
            bitRate = Int(info.samplerate) * channelCount * bitDepth
        } else {
            bitRate = duration > 0 ? Int((Double(source.size) * 8 / duration).rounded()) : 0
        }
        settings = SoundSettings(formatID: formatID, sampleRate: Int(info.samplerate), numberOfChannels: channelCount,
                                 bitRate: bitRate, bitDepth: bitDepth,
                                 channelLayout: channelCount == 1 ? "mono" : channelCount == 2 ? "stereo" : "\(channelCount) channels")
        frameCount = frames
        func tag(_ kind: Int32) -> String? {
            guard let p = sf_get_string(sndfile, kind) else { return nil }
            let s = String(cString: p).trimmingSpaces()
            return s.isEmpty ? nil : s
        }
        var tags = SoundMetadata(title: tag(Int32(SF_STR_TITLE)), artist: tag(Int32(SF_STR_ARTIST)),
                                 album: tag(Int32(SF_STR_ALBUM)))
        if formatID == "flac" { tags.artwork = FLACPicture.read(source) }
        metadata = tags
        file = sndfile
        stream = memory
        virtualIO = vio
        channels = channelCount
        formatName = formatID == "ogg" ? "Ogg Vorbis" : formatID == "opus" ? "Opus" : name
    }

    deinit {
        sf_close(file)
        virtualIO?.deallocate()
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        guard frames > 0 else { return 0 }
        let wanted = min(Int64(frames), frameCount - position)
        guard wanted > 0 else { return 0 }
        var filled: Int64 = 0
        while filled < wanted {
            let n = Int64(sf_readf_float(file, buffer + Int(filled) * channels, sf_count_t(wanted - filled)))
            if n <= 0 { break }
            filled += n
        }
        let error = sf_error(file)
        if error != 0 {
            let e = SndFileError(file: file, operation: "sf_readf_float")
            position += filled
            throw DecodeError(.corrupt, "corrupt \(formatName) at \(DecodeError.seconds(Double(position) / Double(settings.sampleRate))) (\(e.description))")
        }
        position += filled
        if filled == 0 {
            // libsndfile reports a cut or damaged stream as an early end.
            let rate = Double(settings.sampleRate)
            throw DecodeError(.truncated, "truncated \(formatName): decoded \(DecodeError.seconds(Double(position) / rate)) of \(DecodeError.seconds(Double(frameCount) / rate)) (the file is cut off or damaged)")
        }
        return Int(filled)
    }

    func seek(toFrame frame: Int64) throws {
        guard frame >= 0, frame <= frameCount else {
            throw DecodeError(.io, "cannot seek to frame \(frame): the sound has \(frameCount) frames")
        }
        if frame == frameCount {
            position = frame
            return
        }
        // libsndfile lands on the right Vorbis frame but does not prime the decoder: the
        // first block after a seek lacks its overlap. Seek earlier and decode up to `frame`.
        let start = max(0, frame - seekPreroll)
        if sf_seek(file, sf_count_t(start), SEEK_SET) != sf_count_t(start) {
            // Some seeks near the end of Ogg streams fail: start over and decode forward.
            guard sf_seek(file, 0, SEEK_SET) == 0 else {
                let e = SndFileError(file: file, operation: "sf_seek")
                throw DecodeError(.corrupt, "cannot seek in the \(formatName) data (\(e.description))")
            }
            try skip(frame)
        } else {
            try skip(frame - start)
        }
        position = frame
    }

    /// Frames decoded before a seek target so the decoder state is exact there.
    private var seekPreroll: Int64 { formatName == "Ogg Vorbis" ? 8192 : 0 }

    /// Decodes and drops `count` frames.
    private func skip(_ count: Int64) throws {
        guard count > 0 else { return }
        let chunk = 4096
        var scratch = [Float](repeating: 0, count: chunk * channels)
        var left = count
        while left > 0 {
            let want = sf_count_t(min(Int64(chunk), left))
            let n = scratch.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress!, want) }
            guard n > 0 else {
                let e = SndFileError(file: file, operation: "sf_readf_float")
                throw DecodeError(.corrupt, "cannot seek in the \(formatName) data: it ends early (\(e.description))")
            }
            left -= Int64(n)
        }
    }
}
