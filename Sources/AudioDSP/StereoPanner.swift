import Foundation

/// Web Audio's StereoPannerNode law as a 2×2 matrix from (left, right) input to
/// (left, right) output: equal power for mono; a stereo source at pan 0 is unchanged.
/// A plain value; any thread.
package struct StereoPanner: Sendable, Equatable, BitwiseCopyable {
    /// out.left = ll·in.left + rl·in.right; out.right = lr·in.left + rr·in.right.
    package var ll: Float, rl: Float, lr: Float, rr: Float

    package init(ll: Float, rl: Float, lr: Float, rr: Float) {
        self.ll = ll; self.rl = rl; self.lr = lr; self.rr = rr
    }

    /// The matrix for `pan` in −1…1 and a source of `sourceChannels` (1 or 2).
    package init(pan: Double, sourceChannels: Int) {
        let p = min(1, max(-1, pan))
        if sourceChannels == 1 {
            let x = (p + 1) / 2
            self.init(ll: Float(cos(x * .pi / 2)), rl: 0, lr: Float(sin(x * .pi / 2)), rr: 0)
        } else if p <= 0 {
            let x = p + 1
            self.init(ll: 1, rl: Float(cos(x * .pi / 2)), lr: 0, rr: Float(sin(x * .pi / 2)))
        } else {
            let x = p
            self.init(ll: Float(cos(x * .pi / 2)), rl: 0, lr: Float(sin(x * .pi / 2)), rr: 1)
        }
    }
}
