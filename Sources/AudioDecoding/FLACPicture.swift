/// Reads the front-cover (or first) PICTURE metadata block of a FLAC stream — libsndfile
/// does not expose it. Reads only the metadata blocks, never the audio.
///
/// Thread rules: stateless; any thread.
enum FLACPicture {
    static func read(_ source: ByteSource) -> Artwork? {
        let start = (try? FormatProbe.endOfID3Tags(source)) ?? 0
        guard String(decoding: source.read(at: start, count: 4), as: UTF8.self) == "fLaC" else { return nil }
        var offset = start + 4
        var best: Artwork? = nil
        for _ in 0..<256 {
            let header = source.read(at: offset, count: 4)
            guard header.count == 4 else { return best }
            let last = header[0] & 0x80 != 0
            let type = header[0] & 0x7F
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            if type == 6, length >= 32, offset + 4 + Int64(length) <= source.size {
                let block = source.read(at: offset + 4, count: length)
                if let (pictureType, art) = parse(block) {
                    if pictureType == 3 { return art }
                    if best == nil { best = art }
                }
            }
            if last { return best }
            offset += 4 + Int64(length)
        }
        return best
    }

    private static func parse(_ b: [UInt8]) -> (UInt32, Artwork)? {
        var p = 0
        func u32() -> Int? {
            guard p + 4 <= b.count else { return nil }
            defer { p += 4 }
            return Int(b[p]) << 24 | Int(b[p + 1]) << 16 | Int(b[p + 2]) << 8 | Int(b[p + 3])
        }
        guard let type = u32(), let mimeLength = u32(), p + mimeLength <= b.count else { return nil }
        let mime = String(decoding: b[p..<p + mimeLength], as: UTF8.self)
        p += mimeLength
        guard let descriptionLength = u32(), p + descriptionLength <= b.count else { return nil }
        p += descriptionLength + 16 // width, height, depth, colours
        guard let dataLength = u32(), dataLength > 0, p + dataLength <= b.count else { return nil }
        return (UInt32(type), Artwork(mimeType: mime.isEmpty ? "image/jpeg" : mime, bytes: Array(b[p..<p + dataLength])))
    }
}
