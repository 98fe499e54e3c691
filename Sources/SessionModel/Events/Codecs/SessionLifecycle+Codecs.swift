import Foundation

// Each event type's two codecs, side by side: its message of docs/session-events.proto, and its JSON fields
// (an ingest line's, docs/INGEST.md, and the same fields of a stored event as `events` prints it).
// SessionPayload+Protobuf.swift and SessionPayload+JSON.swift only pick the type.

extension SessionStarted {
    init(_ m: Sessionstore_V1_SessionStarted) throws {
        self.init()
        subject = try SessionPayload.subject(m.subjectHash, field: 8)
        locale = m.locale
        device = m.hasDevice ? m.device : nil
        appVersion = m.hasAppVersion ? m.appVersion : nil
        source = SessionSource(rawValue: UInt64(m.source)) ?? .live
        for label in m.labels { labels[label.name] = label.value }
    }

    var message: Sessionstore_V1_SessionStarted {
        var m = Sessionstore_V1_SessionStarted()
        m.subjectHash = Data(subject?.bytes ?? [])
        m.locale = locale
        if let device { m.device = device }
        if let appVersion { m.appVersion = appVersion }
        m.source = UInt32(source.rawValue)
        m.labels = labels.sorted { $0.key < $1.key }.map { name, value in
            var label = Sessionstore_V1_SessionLabel()
            label.name = name
            label.value = value
            return label
        }
        return m
    }

    init?(json f: inout JSONFields, hashIdentifier: (String) -> [UInt8]) {
        let subject = f.subject(hashIdentifier), locale = f.string("locale", maxBytes: 64)
        let device = f.string("device", required: false), appVersion = f.string("app_version", required: false)
        var source = SessionSource.live
        if let name = f.string("source", required: false) {
            switch name {
            case "live": source = .live
            case "fixture": source = .fixture
            case "import": source = .import
            default: f.problem("source", "must be live, fixture or import")
            }
        }
        let labels = f.stringMap("labels") ?? [:]
        if let problem = SessionLabels.problem(labels: labels) { f.problem("labels", problem) }
        guard let subject, let locale else { return nil }
        self.init(subject: subject, locale: locale, device: device, appVersion: appVersion, source: source, labels: labels)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("subject_hash", subject?.description)
        fields.field("locale", locale)
        fields.field("device", device)
        fields.field("app_version", appVersion)
        fields.field("source", source.name)
        fields.field(labels: labels)
    }
}

/// A message with a `reason` (session paused and ended).
protocol ReasonMessage: EnvelopeMessage {
    var reason: String { get set }
    var hasReason: Bool { get }
}

extension Sessionstore_V1_SessionPaused: ReasonMessage {}
extension Sessionstore_V1_SessionEnded: ReasonMessage {}

extension SessionTransition {
    init<M: ReasonMessage>(_ message: M) { self.init(reason: message.hasReason ? message.reason : nil) }

    func message<M: ReasonMessage>(_ empty: M) -> M {
        var message = empty
        if let reason { message.reason = reason }
        return message
    }

    init(json f: inout JSONFields) { self.init(reason: f.string("reason", required: false)) }

    func write(to fields: inout some PayloadFieldWriter) { fields.field("reason", reason) }
}
