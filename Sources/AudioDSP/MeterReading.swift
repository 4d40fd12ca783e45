/// One channel's meter values in dBFS (SPEC 2.2): 0 is full scale, −160 is silence and the floor.
/// A plain value; any thread.
package struct MeterReading: Sendable, Equatable {
    /// The floor, and what silence (or metering off) reads.
    package static let floor: Double = -160
    package static let silence = MeterReading(averagePower: floor, peakPower: floor)

    /// RMS level over the most recent ~50 ms: a sine of amplitude A reads 20·log10(A/√2).
    package var averagePower: Double
    /// Largest absolute sample over the same window: a sine of amplitude A reads 20·log10(A).
    package var peakPower: Double

    package init(averagePower: Double, peakPower: Double) {
        self.averagePower = averagePower
        self.peakPower = peakPower
    }
}
