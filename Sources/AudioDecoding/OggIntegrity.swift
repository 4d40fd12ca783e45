/// Checks every page of an Ogg stream (capture pattern, length, CRC-32, end-of-stream flag)
/// before it is decoded: libsndfile passes over a damaged page or a cut-off end without
/// reporting an error.
///
/// Thread rules: stateless; any thread (it reads through the caller's `ByteSource`).
enum OggIntegrity {
    enum Result: Equatable {
        case clean
        /// The data ends inside a page, or after a page that is not the end of the stream.
        case truncated(offset: Int64)
        /// A page that is not where it should be, or whose checksum does not match.
        case corrupt(offset: Int64)
    }

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0).
    private static let table: [UInt32] = (0..<256).map { i in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func check(_ source: ByteSource) -> Result {
        var position: Int64 = 0
        var lastWasEndOfStream = false
        let table = Self.table
        while position < source.size {
            let header = source.read(at: position, count: 27)
            guard header.count == 27 else { return .truncated(offset: position) }
            guard header[0] == 0x4F, header[1] == 0x67, header[2] == 0x67, header[3] == 0x53, header[4] == 0 else {
                return .corrupt(offset: position)
            }
            let segments = Int(header[26])
            let lacing = source.read(at: position + 27, count: segments)
            guard lacing.count == segments else { return .truncated(offset: position) }
            let length = 27 + segments + lacing.reduce(0) { $0 + Int($1) }
            guard position + Int64(length) <= source.size else { return .truncated(offset: position) }
            let page = source.read(at: position, count: length)
            let stored = UInt32(page[22]) | UInt32(page[23]) << 8 | UInt32(page[24]) << 16 | UInt32(page[25]) << 24
            var crc: UInt32 = 0
            table.withUnsafeBufferPointer { t in
                page.withUnsafeBufferPointer { p in
                    // The checksum field itself (bytes 22…25) counts as zeros.
                    for i in 0..<22 { crc = (crc << 8) ^ t[Int((crc >> 24) ^ UInt32(p[i]))] }
                    for _ in 22..<26 { crc = (crc << 8) ^ t[Int(crc >> 24)] }
                    for i in 26..<p.count { crc = (crc << 8) ^ t[Int((crc >> 24) ^ UInt32(p[i]))] }
                }
            }
            guard crc == stored else { return .corrupt(offset: position) }
            lastWasEndOfStream = header[5] & 0x04 != 0
            position += Int64(length)
        }
        return lastWasEndOfStream ? .clean : .truncated(offset: position)
    }
}
