import ArgumentParser
import EventLog
import Foundation
import Output

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many events and streams the store holds and how much space they take."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions<ObjectFormats>

    func run() async throws {
        try await reportingFailures {
            let statistics = try storeOptions.openLog().statistics()
            let sink = try output.sink()
            switch output.format {
            case .json:
                try sink.writeObject(StatisticsRow(statistics: statistics))
            default:
                var writer = RowWriter<StatisticsTable.Line>(format: .table, sink: sink, header: false)
                for line in StatisticsTable(statistics).lines { try writer.write(line) }
                try writer.finish()
            }
            try sink.close()
        }
    }
}

/// ``StoreStatistics`` as lines people read: counts grouped, sizes in binary units.
struct StatisticsTable {
    let statistics: StoreStatistics

    init(_ statistics: StoreStatistics) { self.statistics = statistics }

    /// A line of the table: what, and how much.
    struct Line: OutputRow {
        static let columns = ["statistic", "value"]
        var name: String
        var value: String

        func write(to fields: inout Fields) {
            fields.field("statistic", name)
            fields.field("value", value)
        }
    }

    var lines: [Line] {
        let s = statistics
        let mapUse = s.mapSize == 0 ? 0 : Double(s.mapUsed) / Double(s.mapSize) * 100
        return [
            Line(name: "events", value: Self.count(s.events)),
            Line(name: "streams", value: Self.count(UInt64(s.streams))),
            Line(name: "data keys", value: Self.count(UInt64(s.dataKeys))),
            Line(name: "dictionaries", value: Self.count(UInt64(s.dictionaries))),
            Line(name: "bytes on disk", value: Self.bytes(s.bytesOnDisk)),
            Line(name: "payload bytes", value: Self.bytes(s.payloadBytes) + " before compression"),
            Line(name: "compressed payload", value: Self.bytes(s.compressedPayloadBytes)),
            Line(name: "compression ratio", value: String(format: "%.2fx", s.compressionRatio)),
            Line(name: "record bytes", value: Self.bytes(s.recordBytes) + " with headers, leaf hashes and tags"),
            Line(name: "map size", value: Self.bytes(s.mapSize)),
            Line(name: "map used", value: Self.bytes(s.mapUsed) + String(format: ", %.0f%% of the map", mapUse)),
        ]
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
