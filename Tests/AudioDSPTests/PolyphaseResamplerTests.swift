import AudioDSP
import Foundation
import Testing

/// The render thread's resampler: exact timing and high fidelity.
@Suite struct PolyphaseResamplerTests {
    /// Resamples a sine and compares every output frame with the sine at the input position
    /// that frame stands for.
    private func errorDB(from inputRate: Int, to outputRate: Int, frequency: Double) throws -> Double {
        let r = try #require(PolyphaseResampler(inputRate: inputRate, outputRate: outputRate))
        let inputFrames = inputRate
        let input = (0..<inputFrames * 2).map { i in Float(0.5 * sin(2 * Double.pi * frequency * Double(i / 2) / Double(inputRate))) }
        let frames = Int(Int64(outputRate) / 2)
        #expect(r.inputEnd(forOutputEnd: Int64(frames)) <= Int64(inputFrames))
        var out = [Float](repeating: 0, count: frames * 2)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                r.process(input: i.baseAddress!, inputBase: 0, start: 0, frames: frames, addingInto: o.baseAddress!, channels: 2)
            }
        }
        var error = 0.0, signal = 0.0
        for f in frames / 4..<frames {  // past the start-up edge
            let x = Double(r.inputFrame(forOutput: Int64(f)) - r.delay) + Double(Int64(f) * Int64(r.down) % Int64(r.up)) / Double(r.up)
            let expected = 0.5 * sin(2 * Double.pi * frequency * (x + Double(r.delay)) / Double(inputRate))
            error += pow(Double(out[2 * f]) - expected, 2)
            signal += expected * expected
            #expect(out[2 * f] == out[2 * f + 1])
        }
        return 10 * log10(error / signal)
    }

    @Test func upsampling441To48IsCleanThroughTheAudibleBand() throws {
        #expect(try errorDB(from: 44_100, to: 48_000, frequency: 1_000) < -90)
        #expect(try errorDB(from: 44_100, to: 48_000, frequency: 15_000) < -80)
    }

    @Test func downsampling96To48() throws {
        #expect(try errorDB(from: 96_000, to: 48_000, frequency: 1_000) < -90)
    }

    @Test func ratiosWithTooManyPhasesAreRefused() {
        #expect(PolyphaseResampler(inputRate: 44_101, outputRate: 48_000) == nil)
        #expect(PolyphaseResampler(inputRate: 48_000, outputRate: 48_000) == nil)
        #expect(PolyphaseResampler(inputRate: 22_050, outputRate: 48_000)?.up == 320)
    }
}
