import Foundation
import SessionModel

/// A session list row in the `sessions` view: protobuf wire format, fields
/// 1 subject hash · 2 locale · 3 status · 4 started-at · 5 ended-at · 6 last event at · 7 segments ·
/// 8 words · 9 recordings {1 id, 2 sample rate, 3 channels, 4 frames} · 10 consent {1 type, 2 granted} ·
/// 11 the session a run replayed · 12 the run's label · 13 labels {1 name, 2 value} (docs/views.proto).
extension SessionSummary {
    static let statusCodes: [Status] = [.active, .paused, .ended, .erased, .purged]

    package var rowBytes: [UInt8] {
        var writer = WireWriter()
        writer.bytes(1, subject?.bytes ?? [])
        writer.optionalString(2, locale)
        writer.uint(3, UInt64(Self.statusCodes.firstIndex(of: status)!))
        writer.optionalSint(4, startedAt)
        writer.optionalSint(5, endedAt)
        writer.optionalSint(6, lastEventAt)
        writer.uint(7, UInt64(segments))
        writer.uint(8, UInt64(words))
        for (id, recording) in recordings.sorted(by: { $0.key < $1.key }) {
            writer.message(9) { nested in
                nested.string(1, id)
                nested.uint(2, UInt64(recording.sampleRate))
                nested.uint(3, UInt64(recording.channels))
                nested.uint(4, recording.frames)
            }
        }
        for (type, granted) in consent.sorted(by: { $0.key < $1.key }) {
            writer.message(10) { nested in
                nested.string(1, type)
                nested.bool(2, granted)
            }
        }
        if let runOf { writer.bytes(11, runOf.wireBytes) }
        writer.optionalString(12, runLabel)
        for (name, value) in labels.sorted(by: { $0.key < $1.key }) {
            writer.message(13) { nested in
                nested.string(1, name)
                nested.string(2, value)
            }
        }
        return writer.bytes
    }

    init(session: UUID, row: [UInt8]) throws {
        self.init(session: session)
        try WireReader.readFields(of: row) { field, type, reader in
            switch field {
            case 1: subject = try reader.subject(type, field)
            case 2: locale = try reader.text(type, field)
            case 3:
                let code = Int(try reader.uint64(type, field))
                status = code < Self.statusCodes.count ? Self.statusCodes[code] : .active
            case 4: startedAt = try reader.sint()
            case 5: endedAt = try reader.sint()
            case 6: lastEventAt = try reader.sint()
            case 7: segments = Int(try reader.uint64(type, field))
            case 8: words = Int(try reader.uint64(type, field))
            case 9:
                var id = "", recording = Recording(sampleRate: 0, channels: 0, frames: 0)
                try WireReader.readFields(of: try reader.lengthDelimited()) { inner, innerType, nested in
                    switch inner {
                    case 1: id = try nested.text(innerType, inner)
                    case 2: recording.sampleRate = try nested.uint32(innerType, inner)
                    case 3: recording.channels = try nested.uint32(innerType, inner)
                    case 4: recording.frames = try nested.uint64(innerType, inner)
                    default: try nested.skip(innerType)
                    }
                }
                recordings[id] = recording
            case 10:
                var consentType = "", granted = false
                try WireReader.readFields(of: try reader.lengthDelimited()) { inner, innerType, nested in
                    switch inner {
                    case 1: consentType = try nested.text(innerType, inner)
                    case 2: granted = try nested.uint64(innerType, inner) != 0
                    default: try nested.skip(innerType)
                    }
                }
                consent[consentType] = granted
            case 11: runOf = try UUID(wire: try reader.data(type, field), field: field)
            case 12: runLabel = try reader.text(type, field)
            case 13:
                var name = "", value = ""
                try WireReader.readFields(of: try reader.lengthDelimited()) { inner, innerType, nested in
                    switch inner {
                    case 1: name = try nested.text(innerType, inner)
                    case 2: value = try nested.text(innerType, inner)
                    default: try nested.skip(innerType)
                    }
                }
                labels[name] = value
            default: try reader.skip(type)
            }
        }
    }
}
