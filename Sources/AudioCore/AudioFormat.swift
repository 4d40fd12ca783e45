/// The shape of interleaved Float32 audio: frames per second and samples per frame.
/// A plain value; any thread.
package struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    package var sampleRate: Int
    package var channels: Int

    package init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    package var description: String { "\(sampleRate) Hz, \(channels) ch" }
}
