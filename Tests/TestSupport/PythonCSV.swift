import Foundation

/// Python's csv module (the standard library's, a real RFC 4180 reader), as an independent reader of
/// our CSV: the rows it reads from UTF-8 bytes.
public enum PythonCSV {
    public static func read(_ csv: Data) throws -> [[String]] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv")
        try csv.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import csv, json, sys
            with open(sys.argv[1], newline="", encoding="utf-8") as f:
                json.dump(list(csv.reader(f, strict=True)), sys.stdout)
            """, input.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let rows = try JSONSerialization.jsonObject(with: data) as? [[String]] else {
            throw PythonCSVError(message: "python3's csv module could not read the CSV (exit \(process.terminationStatus))")
        }
        return rows
    }
}

public struct PythonCSVError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
