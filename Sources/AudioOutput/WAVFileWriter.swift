#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AudioCore

/// close(2), named apart from `WAVFileWriter.close()`.
private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}

/// open(2) and write(2), named apart from the writer's own methods.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func writeBytes(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

/// Writes interleaved Float32 audio to a WAVE_FORMAT_IEEE_FLOAT (32-bit) WAV file through a
/// byte buffer allocated once, flushed with write(2); the header (RIFF, fact and data sizes)
/// is rewritten in place with pwrite(2) by `patchHeader` and `close`, so the file is valid
/// after every patch (a reader mid-run or after a crash sees everything flushed so far).
///
/// Owned by `WAVFileSink`; used by its render thread only. `append` allocates nothing.
/// Sizes beyond the 4 GiB limit of RIFF are written as 0xFFFFFFFF ("to the end of the file").
final class WAVFileWriter {
    /// RIFF + fmt (18 bytes, cbSize 0) + fact + data chunk headers.
    static let headerBytes = 58

    let path: String
    let sampleRate: Int
    let channels: Int

    private var fd: Int32 = -1
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 0
    private let header: UnsafeMutableRawPointer
    /// Sample bytes on disk (flushed).
    private(set) var flushedBytes: UInt64 = 0

    /// Allocates the buffer (`bufferBytes`, at least 64 KiB). Does not touch the file.
    init(path: String, sampleRate: Int, channels: Int, bufferBytes: Int) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        let bytes = max(bufferBytes, 1 << 16)
        capacity = bytes - bytes % (4 * channels)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        header = UnsafeMutableRawPointer.allocate(byteCount: Self.headerBytes, alignment: 4)
    }

    deinit {
        if fd >= 0 { closeDescriptor(fd) }
        buffer.deallocate()
        header.deallocate()
    }

    var isOpen: Bool { fd >= 0 }

    /// Creates (truncates) the file and writes a header for zero frames.
    func create() throws {
        releaseDescriptor()
        fd = openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw failure(.openFailed, "open") }
        used = 0
        flushedBytes = 0
        try patchHeader()
        // pwrite does not move the offset: sample data starts after the header.
        if lseek(fd, off_t(Self.headerBytes), SEEK_SET) < 0 { throw failure(.openFailed, "lseek") }
    }

    /// Buffers `frames` frames, flushing to disk whenever the buffer fills.
    func append(_ samples: UnsafePointer<Float>, frames: Int) throws {
        var remaining = frames * channels * 4
        var source = UnsafeRawPointer(samples)
        while remaining > 0 {
            if used == capacity { try flush() }
            let n = min(remaining, capacity - used)
            #if _endian(little)
            (buffer + used).copyMemory(from: source, byteCount: n)
            #else
            for i in stride(from: 0, to: n, by: 4) {
                let v = source.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
                (buffer + used + i).storeBytes(of: v, as: UInt32.self)
            }
            #endif
            used += n
            source += n
            remaining -= n
        }
    }

    /// Writes the buffered bytes to the file (not the header).
    func flush() throws {
        var offset = 0
        while offset < used {
            let n = writeBytes(fd, buffer + offset, used - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(.writeFailed, "write")
            }
            offset += n
        }
        flushedBytes += UInt64(used)
        used = 0
    }

    /// Rewrites the header so that it describes exactly the flushed data.
    func patchHeader() throws {
        let data = flushedBytes
        func clamp(_ v: UInt64) -> UInt32 { v > 0xFFFF_FFFF ? 0xFFFF_FFFF : UInt32(v) }
        func put(_ offset: Int, _ v: UInt32) { (header + offset).storeBytes(of: v.littleEndian, as: UInt32.self) }
        func put16(_ offset: Int, _ v: UInt16) { (header + offset).storeBytes(of: v.littleEndian, as: UInt16.self) }
        func tag(_ offset: Int, _ s: StaticString) {
            (header + offset).copyMemory(from: s.utf8Start, byteCount: 4)
        }
        tag(0, "RIFF"); put(4, clamp(data + UInt64(Self.headerBytes - 8))); tag(8, "WAVE")
        tag(12, "fmt "); put(16, 18)
        put16(20, 3)                                   // WAVE_FORMAT_IEEE_FLOAT
        put16(22, UInt16(channels))
        put(24, UInt32(sampleRate))
        put(28, UInt32(sampleRate * channels * 4))     // bytes per second
        put16(32, UInt16(channels * 4))                // block align
        put16(34, 32)                                  // bits per sample
        put16(36, 0)                                   // cbSize
        tag(38, "fact"); put(42, 4); put(46, clamp(data / UInt64(channels * 4)))
        tag(50, "data"); put(54, clamp(data))
        var offset = 0
        while offset < Self.headerBytes {
            let n = pwrite(fd, header + offset, Self.headerBytes - offset, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(.writeFailed, "pwrite (header)")
            }
            offset += n
        }
    }

    /// Flushes, patches the header and closes the file. Idempotent.
    func close() throws {
        guard fd >= 0 else { return }
        defer { releaseDescriptor() }
        try flush()
        try patchHeader()
    }

    private func releaseDescriptor() {
        if fd >= 0 { closeDescriptor(fd) }
        fd = -1
    }

    private func failure(_ kind: OutputError.Kind, _ operation: String) -> OutputError {
        OutputError(kind, "WAV file '\(path)': \(String(cString: strerror(errno))) (while \(operation))")
    }
}
