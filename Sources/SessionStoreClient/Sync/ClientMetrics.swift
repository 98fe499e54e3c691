import CoreMetrics

/// The client's figures through swift-metrics, as the server's go (an app bootstraps its own backend).
struct ClientMetrics: Sendable {
    let appended = Counter(label: "sessionstore_client_events_appended_total")
    let acknowledged = Counter(label: "sessionstore_client_events_acknowledged_total")
    let refused = Counter(label: "sessionstore_client_events_refused_total")
    let acknowledgement = Timer(label: "sessionstore_client_acknowledgement_seconds")
    let connections = Counter(label: "sessionstore_client_connections_total")
    let failures = Counter(label: "sessionstore_client_connection_failures_total")
    let outboxEvents = Gauge(label: "sessionstore_client_outbox_events")
    let outboxBytes = Gauge(label: "sessionstore_client_outbox_bytes")

    func outbox(_ depth: (events: Int, bytes: Int)) {
        outboxEvents.record(depth.events)
        outboxBytes.record(depth.bytes)
    }
}
