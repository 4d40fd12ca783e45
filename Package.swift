// swift-tools-version:6.0
import PackageDescription

/// A Debian system library wrapped as a Clang module (module.modulemap + shim.h).
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "Tonearm",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tonearm", targets: ["tonearm"]),
        .executable(name: "tonearm-bench", targets: ["tonearm-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CMPG123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        systemLibrary("CSoundTouch", pkgConfig: "soundtouch", apt: "libsoundtouch-dev"),
        systemLibrary("CJansson", pkgConfig: "jansson", apt: "libjansson-dev"),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        systemLibrary("COpenSSL", pkgConfig: "libcrypto", apt: "libssl-dev"),

        .target(name: "AudioCore", swiftSettings: strict),
        .target(name: "AudioDecoding", dependencies: ["AudioCore", "CMPG123", "CSndFile"], swiftSettings: strict),
        .target(name: "AudioDSP", dependencies: ["AudioCore", "CSoxr", "CSoundTouch"], swiftSettings: strict),
        .target(name: "AudioOutput", dependencies: ["AudioCore", "CALSA", "CSndFile"], swiftSettings: strict),
        .target(name: "AudioEngine", dependencies: ["AudioCore", "AudioDecoding", "AudioDSP"], swiftSettings: strict),
        .target(name: "JSON", dependencies: ["CJansson"], swiftSettings: strict),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"], swiftSettings: strict),
        .target(name: "TonearmAPI",
                dependencies: ["AudioCore", "AudioEngine", "AudioDecoding", "AudioOutput", "HTTPServer", "JSON", "COpenSSL",
                               .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        .executableTarget(name: "tonearm",
                          dependencies: ["AudioCore", "AudioEngine", "AudioOutput", "AudioDecoding", "TonearmAPI",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Logging", package: "swift-log")],
                          swiftSettings: strict),
        .executableTarget(name: "tonearm-bench",
                          dependencies: ["AudioCore", "AudioEngine", "AudioOutput", "AudioDecoding", "AudioDSP", "TonearmAPI", "HTTPServer",
                                         .product(name: "Logging", package: "swift-log")],
                          swiftSettings: strict),

        /// Test-only malloc counter: interposes malloc so the real-time rule can be checked.
        .target(name: "CAllocCounter", path: "Tests/CAllocCounter"),
        .target(name: "TestSupport", dependencies: ["AudioCore"], path: "Tests/TestSupport", swiftSettings: strict),

        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AudioDecodingTests", dependencies: ["AudioDecoding", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AudioDSPTests", dependencies: ["AudioDSP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AudioOutputTests", dependencies: ["AudioOutput", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AudioEngineTests",
                    dependencies: ["AudioEngine", "AudioDecoding", "AudioOutput", "TestSupport", "CAllocCounter"],
                    swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"], swiftSettings: strict),
        /// End to end: drives the real `tonearm` binary over HTTP.
        .testTarget(name: "TonearmAPITests", dependencies: ["TestSupport", "JSON"], swiftSettings: strict),
    ]
)
