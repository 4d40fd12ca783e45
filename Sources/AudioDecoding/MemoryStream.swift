/// A read/seek cursor over bytes in memory, handed to libmpg123 and libsndfile as the
/// I/O handle of their callback readers (the C callbacks get it back with `Unmanaged`).
///
/// Thread rules: owned by one decoder and touched only from the thread using that decoder.
final class MemoryStream {
    let bytes: [UInt8]
    var position: Int = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Copies up to `count` bytes to `destination`; returns how many (0 at the end).
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = max(0, min(count, bytes.count - position))
        if n > 0 {
            bytes.withUnsafeBytes { src in
                destination.copyMemory(from: src.baseAddress! + position, byteCount: n)
            }
            position += n
        }
        return n
    }

    /// POSIX `lseek` semantics (0 = SEEK_SET, 1 = SEEK_CUR, 2 = SEEK_END); -1 when invalid.
    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let base: Int64
        switch whence {
        case 0: base = 0
        case 1: base = Int64(position)
        case 2: base = Int64(bytes.count)
        default: return -1
        }
        let target = base + offset
        guard target >= 0 else { return -1 }
        position = Int(min(target, Int64(bytes.count)))
        return target
    }
}
