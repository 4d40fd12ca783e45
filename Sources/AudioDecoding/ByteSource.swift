#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to a sound's bytes for probing and for the small integrity checks
/// (container sizes, Xing frame counts, Ogg end-of-stream pages): reads only the bytes
/// asked for, never the whole file.
///
/// Thread rules: used by the thread that opens a decoder; not shared.
final class ByteSource {
    private enum Storage {
        case file(Int32)
        case memory([UInt8])
    }

    private let storage: Storage
    /// Total size in bytes.
    let size: Int64

    /// Opens `input`; throws `DecodeError(.io)` when a file cannot be opened.
    init(_ input: AudioInput) throws {
        switch input {
        case .bytes(let bytes):
            storage = .memory(bytes)
            size = Int64(bytes.count)
        case .file(let path):
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                throw DecodeError(.io, "cannot open \(path): \(reason)")
            }
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                throw DecodeError(.io, "cannot read \(path): \(reason)")
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                Glibc.close(fd)
                throw DecodeError(.io, "cannot read \(path): it is a directory")
            }
            storage = .file(fd)
            size = Int64(st.st_size)
        }
    }

    deinit {
        if case .file(let fd) = storage { Glibc.close(fd) }
    }

    /// Up to `count` bytes starting at `offset` (fewer at the end; empty past it).
    func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let n = Int(min(Int64(count), size - offset))
        switch storage {
        case .memory(let bytes):
            let start = Int(offset)
            return Array(bytes[start..<start + n])
        case .file(let fd):
            var out = [UInt8](repeating: 0, count: n)
            var filled = 0
            out.withUnsafeMutableBytes { raw in
                while filled < n {
                    let r = pread(fd, raw.baseAddress! + filled, n - filled, off_t(offset) + off_t(filled))
                    if r < 0 && errno == EINTR { continue }
                    if r <= 0 { break }
                    filled += r
                }
            }
            if filled < n { out.removeSubrange(filled...) }
            return out
        }
    }
}
