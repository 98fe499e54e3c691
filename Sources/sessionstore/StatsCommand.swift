import ArgumentParser
import EventLog
import Foundation

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many events and streams the store holds and how much space they take."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Output format: table or json.")
    var format: Format = .table

    func run() async throws {
        try await reportingFailures {
            let statistics = try storeOptions.openLog().statistics()
            switch format {
            case .table: print(StatisticsTable(statistics).text, terminator: "")
            case .json: print(try StatisticsTable.json(statistics))
            }
        }
    }
}

/// The rendering of ``StoreStatistics`` as a two-column table or as JSON.
struct StatisticsTable {
    let statistics: StoreStatistics

    init(_ statistics: StoreStatistics) { self.statistics = statistics }

    var rows: [(String, String)] {
        let s = statistics
        let mapUse = s.mapSize == 0 ? 0 : Double(s.mapUsed) / Double(s.mapSize) * 100
        return [
            ("events", Self.count(s.events)),
            ("streams", Self.count(UInt64(s.streams))),
            ("data keys", Self.count(UInt64(s.dataKeys))),
            ("dictionaries", Self.count(UInt64(s.dictionaries))),
            ("bytes on disk", Self.bytes(s.bytesOnDisk)),
            ("payload bytes", Self.bytes(s.payloadBytes) + " before compression"),
            ("compressed payload", Self.bytes(s.compressedPayloadBytes)),
            ("compression ratio", String(format: "%.2fx", s.compressionRatio)),
            ("record bytes", Self.bytes(s.recordBytes) + " with headers, leaf hashes and tags"),
            ("map size", Self.bytes(s.mapSize)),
            ("map used", Self.bytes(s.mapUsed) + String(format: ", %.0f%% of the map", mapUse)),
        ]
    }

    var text: String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 + "\n" }.joined()
    }

    static func json(_ statistics: StoreStatistics) throws -> String {
        let object: [String: Any] = [
            "events": statistics.events, "streams": statistics.streams, "data_keys": statistics.dataKeys,
            "dictionaries": statistics.dictionaries, "bytes_on_disk": statistics.bytesOnDisk,
            "payload_bytes": statistics.payloadBytes, "compressed_payload_bytes": statistics.compressedPayloadBytes,
            "compression_ratio": (statistics.compressionRatio * 1000).rounded() / 1000,
            "record_bytes": statistics.recordBytes, "map_size": statistics.mapSize, "map_used": statistics.mapUsed,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }

    static func count(_ value: UInt64) -> String {
        value.formatted(.number.grouping(.automatic))
    }

    static func bytes(_ value: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var scaled = Double(value)
        var unit = 0
        while scaled >= 1024, unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f %@ (%@ bytes)", scaled, units[unit], count(value))
    }
}
