import AudioDSP

/// A message from the control plane to the render thread, carried by value through the
/// engine's SPSC command queue (no allocation, no locks). `slot` names a voice.
enum EngineCommand: BitwiseCopyable {
    /// Adds a voice (a retained `Voice`, opaque) to the mixer's table.
    case attach(slot: Int32, voice: UnsafeMutableRawPointer)
    /// Adds a resample bus (a retained `ResampleBus`, opaque) as bus `index`; kept for the mixer's life.
    case addBus(index: Int32, bus: UnsafeMutableRawPointer)
    /// Removes the voice; the mixer hands the pointer back on the retire queue.
    case detach(slot: Int32)
    /// Starts at device frame `startFrame`, or as soon as audio is ready when it is negative.
    case play(slot: Int32, startFrame: Int64)
    case pause(slot: Int32)
    /// Stops playing; the voice keeps its position for the next prepare.
    case stop(slot: Int32)
    /// Drops every block older than `generation`; the stream restarts at `position` (source frames).
    case flush(slot: Int32, generation: UInt32, position: Double)
    /// Ramps the gain to `target` over `frames` frames.
    case gain(slot: Int32, target: Float, frames: Int32)
    /// Ramps the gain to `target` over `frames` frames starting exactly at device frame
    /// `frame` (mid-period if need be; at once if that frame has passed). The voice keeps one
    /// pending scheduled ramp: a newer `gainAt` replaces one that has not started yet.
    case gainAt(slot: Int32, frame: Int64, target: Float, frames: Int32)
    /// New pan matrix, reached over the smoothing time.
    case pan(slot: Int32, matrix: StereoPanner)
    /// New routing of sound channels to device channels (see `ChannelRouting`).
    case routing(slot: Int32, routing: ChannelRouting)
    /// Turns the voice's meter on (from silence) or off.
    case metering(slot: Int32, enabled: Bool)
}
