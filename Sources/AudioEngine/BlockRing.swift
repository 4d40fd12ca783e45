import AudioCore

/// Describes one block of converted audio travelling from a decode worker to the mixer.
struct BlockHeader: BitwiseCopyable {
    static let end: UInt8 = 1
    static let error: UInt8 = 2

    /// Frames of audio in the block (0 for an end or error marker).
    var frames: Int32 = 0
    var flags: UInt8 = 0
    /// The prepare/seek generation the block belongs to; the mixer drops older ones.
    var generation: UInt32 = 0
    /// Index, at the device rate, of the block's first frame in its generation's stream.
    var streamFrame: Int64 = 0
    /// Position in the sound (source frames, within one loop) of the block's first frame.
    var sourceFrame: Double = 0
    /// Source frames advanced per output frame.
    var sourceStep: Double = 1
}

/// A player's bounded queue of audio blocks at the device rate, in the sound's channel
/// count: a fixed pool of blocks passed by index through two SPSC queues. The decode
/// worker pops `free` and pushes `filled`; the render thread pops `filled` and pushes
/// `free`. Everything is allocated once, at creation, on the control plane.
final class BlockRing: @unchecked Sendable {
    let blockCount: Int
    let blockFrames: Int
    let channels: Int
    let headers: UnsafeMutablePointer<BlockHeader>
    private let storage: UnsafeMutablePointer<Float>
    let filled: SPSCQueue<Int32>
    let free: SPSCQueue<Int32>

    init(blockCount: Int, blockFrames: Int, channels: Int) {
        self.blockCount = blockCount
        self.blockFrames = blockFrames
        self.channels = channels
        headers = .allocate(capacity: blockCount)
        headers.initialize(repeating: BlockHeader(), count: blockCount)
        storage = .allocate(capacity: blockCount * blockFrames * channels)
        storage.initialize(repeating: 0, count: blockCount * blockFrames * channels)
        filled = SPSCQueue(minimumCapacity: blockCount)
        free = SPSCQueue(minimumCapacity: blockCount)
        for i in 0..<blockCount { free.push(Int32(i)) }
    }

    deinit {
        headers.deallocate()
        storage.deallocate()
    }

    @inline(__always)
    func samples(_ block: Int32) -> UnsafeMutablePointer<Float> {
        storage + Int(block) * blockFrames * channels
    }
}
