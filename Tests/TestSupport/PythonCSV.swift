import Foundation

/// Python's csv module (the standard library's, a real RFC 4180 reader), as an independent reader of
/// our CSV: the rows it reads from UTF-8 bytes.
public enum PythonCSV {
    public static func read(_ csv: Data) throws -> [[String]] {
        let input = Scratch.url("csv-\(UUID().uuidString).csv")
        try csv.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let run = try runPython(["-c", """
            import csv, json, sys
            with open(sys.argv[1], newline="", encoding="utf-8") as f:
                json.dump(list(csv.reader(f, strict=True)), sys.stdout)
            """, input.path])
        guard run.status == 0, let rows = try JSONSerialization.jsonObject(with: run.stdout) as? [[String]] else {
            throw PythonCSVError(message: "python3's csv module could not read the CSV: \(run.stderr)")
        }
        return rows
    }
}

public struct PythonCSVError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
