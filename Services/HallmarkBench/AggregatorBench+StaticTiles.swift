import AggregatorCore
import Foundation
import HallmarkCrypto

extension AggregatorBench {
    /// The log's tile directory (``TileDirectory``, as `HALLMARK_AGGREGATOR_TILES_DIR` keeps
    /// it) served by Debian's nginx on loopback, read with the same random full tiles (``randomFullTile(_:among:)``) as
    /// ``tileReads(schema:size:readers:seconds:)``, over `connections` keep-alive HTTP
    /// connections for `seconds`. Returns tiles per second, or nil without nginx.
    func staticTileReads(schema: String, size: Int, connections: Int, seconds: Double) async throws -> Double? {
        guard
            let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        let full = UInt64(size / TileCoordinate.width)
        precondition(full > 0, "the tile bench needs at least one full tile")
        let folder = world.folder.appendingPathComponent("nginx")
        let tiles = folder.appendingPathComponent("tiles").path
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        _ = try await world.pool.withConnection { try await TileDirectory(path: tiles).write(LogStore(schema: schema), on: $0) }

        let port = try HTTPLoad.freePort()
        let configuration = folder.appendingPathComponent("nginx.conf")
        try Data(Self.nginxConfiguration(root: tiles, port: port, folder: folder.path).utf8).write(to: configuration)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", folder.path, "-c", configuration.path, "-e", folder.appendingPathComponent("error.log").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // Up when the checkpoint is served.
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? await HTTPLoad.get(port: port, connections: 1, seconds: 0) { _, _ in ("/checkpoint", nil) }) == nil {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw BenchError("nginx did not serve the tile directory: \(log.suffix(500))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let start = ContinuousClock.now
        let reads = try await HTTPLoad.get(port: port, connections: connections, seconds: seconds) { connection, count in
            let tile = Self.randomFullTile(count + connection, among: full)
            return ("/" + tile.description, tile.level == nil ? nil : 32 * TileCoordinate.width)
        }
        return Double(reads) / (ContinuousClock.now - start).seconds
    }

    /// A minimal nginx serving `root` on 127.0.0.1:`port`, in the foreground, its files in `folder`.
    static func nginxConfiguration(root: String, port: UInt16, folder: String) -> String {
        """
        daemon off;
        worker_processes auto;
        pid \(folder)/nginx.pid;
        \(geteuid() == 0 ? "user root;" : "")
        events { worker_connections 1024; }
        http {
            access_log off;
            sendfile on;
            keepalive_requests 1000000;
            default_type application/octet-stream;
            client_body_temp_path \(folder)/body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
            }
        }

        """
    }
}
