/// A linear gain ramp that lands exactly on its target: volume smoothing (~5 ms) and
/// sample-accurate fades share it. Render thread only; a plain value, no allocation.
///
/// The ramp steps in Double: a Float accumulator drifts by ~1e-3 over a one-second fade
/// and then jumps onto the target at the end (a click).
package struct GainRamp: Sendable {
    private var value: Double
    package private(set) var target: Float
    private var step: Double = 0
    private var remaining: Int = 0

    package init(_ value: Float) {
        self.value = Double(value)
        target = value
    }

    /// The gain of the next frame.
    package var current: Float { Float(value) }

    package var isRamping: Bool { remaining > 0 }

    /// Ramps from the current value (even mid-ramp) to `target` over `frames` frames.
    package mutating func ramp(to target: Float, frames: Int) {
        self.target = target
        if frames <= 0 || target == current {
            value = Double(target)
            remaining = 0
        } else {
            remaining = frames
            step = (Double(target) - value) / Double(frames)
        }
    }

    /// The gain for the next frame, then advances one frame.
    @inline(__always)
    package mutating func next() -> Float {
        guard remaining > 0 else { return Float(value) }
        let result = Float(value)
        remaining -= 1
        value = remaining == 0 ? Double(target) : value + step
        return result
    }

    /// Advances `frames` frames without producing values.
    package mutating func advance(_ frames: Int) {
        guard remaining > 0 else { return }
        if frames >= remaining {
            remaining = 0
            value = Double(target)
        } else {
            remaining -= frames
            value += step * Double(frames)
        }
    }
}
