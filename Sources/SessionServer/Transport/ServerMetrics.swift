import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// What `/metrics` reports, in Prometheus' text format: swift-metrics instruments on a registry of this
/// server's own (no process-wide bootstrap, so servers in one process do not share counts).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// Events appended (duplicates of a resend not counted).
    let appendedEvents: CoreMetrics.Counter
    /// Events sent again that the store held already (a client's resend): stored once, counted here.
    let duplicateEvents: CoreMetrics.Counter
    /// Append requests answered with positions.
    let appendRequests: CoreMetrics.Counter
    /// From a request's body being whole to its events being durable.
    let durableCommitLatency: CoreMetrics.Timer
    /// Requests answered with a 4xx or 5xx status.
    let rejectedRequests: CoreMetrics.Counter
    /// Connections open now.
    let openConnections: CoreMetrics.Gauge
    private let connections = Atomic<Int>(0)

    init() {
        let factory = PrometheusMetricsFactory(registry: registry)
        appendedEvents = Counter(label: "sessionstore_appended_events_total", dimensions: [], factory: factory)
        duplicateEvents = Counter(label: "sessionstore_duplicate_events_total", dimensions: [], factory: factory)
        appendRequests = Counter(label: "sessionstore_append_requests_total", dimensions: [], factory: factory)
        durableCommitLatency = Timer(label: "sessionstore_durable_commit_seconds", dimensions: [], preferredDisplayUnit: .seconds, factory: factory)
        rejectedRequests = Counter(label: "sessionstore_rejected_requests_total", dimensions: [], factory: factory)
        openConnections = Gauge(label: "sessionstore_open_connections", dimensions: [], factory: factory)
    }

    func connectionOpened() { openConnections.record(connections.add(1, ordering: .relaxed).newValue) }
    func connectionClosed() { openConnections.record(connections.subtract(1, ordering: .relaxed).newValue) }

    /// The text `/metrics` answers with.
    func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
