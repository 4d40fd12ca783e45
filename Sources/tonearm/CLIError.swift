/// A start-up or runtime failure: ArgumentParser prints "Error: <message>" and exits 1 (no usage text).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
