import Foundation

/// Finds the control page and openapi.yaml: next to the working directory (a checkout),
/// next to the executable's install prefix (`share/tonearm`), or in the checkout the
/// executable was built in (`.build/<config>/tonearm`).
struct Resources {
    var publicDirectory: String?
    var openAPIPath: String?

    init(publicOption: String?) {
        let fm = FileManager.default
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let bases = [fm.currentDirectoryPath,
                     executable.appendingPathComponent("../share/tonearm").standardized.path,
                     executable.appendingPathComponent("../../..").standardized.path,
                     executable.appendingPathComponent("../../../..").standardized.path]
        func isDirectory(_ path: String) -> Bool {
            var d: ObjCBool = false
            return fm.fileExists(atPath: path, isDirectory: &d) && d.boolValue
        }
        if let publicOption {
            publicDirectory = isDirectory(publicOption) ? publicOption : nil
        } else {
            publicDirectory = bases.map { $0 + "/public" }.first(where: isDirectory)
        }
        openAPIPath = bases.map { $0 + "/openapi.yaml" }.first { fm.fileExists(atPath: $0) }
    }
}
