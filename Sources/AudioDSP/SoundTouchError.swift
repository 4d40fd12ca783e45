/// A failed SoundTouch call: what went wrong and the operation that failed. Any thread.
///
/// SoundTouch's C API reports failure only as a zero return (or a null handle), so
/// `message` is ours, written from what the call was asked to do.
package struct SoundTouchError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The SoundTouch function (and context), e.g. `soundtouch_setChannels 24`.
    package var operation: String

    package init(message: String, operation: String) {
        self.message = message
        self.operation = operation
    }

    package var description: String { "SoundTouch: \(message) (while \(operation))" }
}
