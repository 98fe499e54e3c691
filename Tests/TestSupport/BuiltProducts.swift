import Foundation

/// Executables built by this package, found beside the running test bundle.
public enum BuiltProducts {
    public static func url(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // macOS runs tests inside an .xctest bundle: look next to the bundle.
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
        return URL(fileURLWithPath: bundle?.bundlePath ?? beside.path).deletingLastPathComponent().appendingPathComponent(name)
    }
}
