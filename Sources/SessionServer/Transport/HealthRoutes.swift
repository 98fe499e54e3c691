import EventLog
import Hummingbird

/// `/healthz` (the process answers), `/readyz` (the store can be read: a load balancer sends traffic) and
/// `/metrics` (Prometheus' text format). These take no token: probes and scrapers carry none, and they
/// tell counts, never content.
struct HealthRoutes {
    let log: EventLog
    let metrics: ServerMetrics

    func add(to router: Router<ServerContext>) {
        router.get("healthz") { _, _ in Response.json(Array(#"{"status":"ok"}"#.utf8)) }
        router.get("readyz") { _, _ in
            do {
                _ = try log.eventCount()
                return Response.json(Array(#"{"status":"ready"}"#.utf8))
            } catch {
                return Response.json(Array(#"{"status":"unavailable"}"#.utf8), status: .serviceUnavailable)
            }
        }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
