import Foundation

/// The files EventLogCrashWriter writes: `position event-id` per acknowledged (or, with --subscribe,
/// received) event.
public enum CrashWriterAcknowledgements {
    public static func path(_ store: TemporaryStore) -> String {
        store.root.appendingPathComponent("acks").path
    }

    /// Acknowledged events, `position → event id`. A line cut off by a kill is ignored.
    public static func read(_ store: TemporaryStore) -> [(UInt64, UUID)] { read(path: path(store)) }

    /// The events listed in the file at `path`, in its order.
    public static func read(path: String) -> [(UInt64, UUID)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let position = UInt64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
            return (position, id)
        }
    }
}
