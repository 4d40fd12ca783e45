/// A linear gain ramp that lands exactly on its target: volume smoothing (~5 ms) and
/// sample-accurate fades share it. Render thread only; a plain value, no allocation.
package struct GainRamp: Sendable {
    package private(set) var current: Float
    package private(set) var target: Float
    private var step: Float = 0
    private var remaining: Int = 0

    package init(_ value: Float) {
        current = value
        target = value
    }

    package var isRamping: Bool { remaining > 0 }

    /// Ramps from the current value (even mid-ramp) to `target` over `frames` frames.
    package mutating func ramp(to target: Float, frames: Int) {
        self.target = target
        if frames <= 0 || target == current {
            current = target
            remaining = 0
        } else {
            remaining = frames
            step = (target - current) / Float(frames)
        }
    }

    /// The gain for the next frame, then advances one frame.
    @inline(__always)
    package mutating func next() -> Float {
        guard remaining > 0 else { return current }
        let value = current
        remaining -= 1
        current = remaining == 0 ? target : current + step
        return value
    }

    /// Advances `frames` frames without producing values.
    package mutating func advance(_ frames: Int) {
        guard remaining > 0 else { return }
        if frames >= remaining {
            remaining = 0
            current = target
        } else {
            remaining -= frames
            current += step * Float(frames)
        }
    }
}
