import Foundation

/// libFuzzer's entry point: runs the target named by SESSIONSTORE_FUZZ_TARGET on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

enum FuzzEntry {
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["SESSIONSTORE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set SESSIONSTORE_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(64)
        }
        return target
    }()
}

#if !FUZZING
/// Built without libFuzzer (`swift build`), the same targets run over files: `SessionStoreFuzz TARGET
/// PATH...` feeds each file (or each file in a directory) to TARGET once, so the seed corpora and every
/// input that once crashed are regression tests of the ordinary build.
@main struct CorpusRunner {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: SessionStoreFuzz \(names) FILE-OR-DIRECTORY...\n".utf8))
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let bytes = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(66)
                }
                target.run(Array(bytes))
                count += 1
            }
        }
        print("\(name): \(count) inputs, no crash")
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
#endif
